#!/usr/bin/env python3
"""Builds the KV-event msgpack fixtures and their expected `events decode` output.

Run from this directory with Debian's python3-msgpack (apt-get install python3-msgpack):
    python3 make_fixtures.py
Writes NAME.msgpack (one raw batch payload, the last ZMQ frame) and NAME.jsonl (the expected
`infera-router events decode` output) for every valid shape, and bad-NAME.msgpack plus
bad-NAME.kind (the expected EventDecodeException kind) for malformed ones. The expected output is
computed here, independently of the Java decoder, from the same event description.
"""
import json
import struct

import msgpack

H1, H2, H3 = 0x1111111111111111, 0x2222222222222222, 0x3333333333333333
BIG = 0xF000000000000001  # above 2^63: packed as uint64
NEG = -2  # packed as int64; normalizes to 0xfffffffffffffffe


def pack(obj):
    return msgpack.packb(obj, use_bin_type=True)


def u64(v):
    return v & 0xFFFFFFFFFFFFFFFF


def hexh(v):
    if isinstance(v, (bytes, bytearray)):
        v = int.from_bytes(bytes(v)[-8:], "big")
    return "%016x" % u64(v)


def flat(tokens):
    if tokens and isinstance(tokens[0], list):
        return [t[0] for t in tokens]
    return list(tokens)


def stored_json(rank, hashes, parent, tokens, block_size, lora_id=None, lora_name=None,
                medium=None, group_idx=None, kind=None):
    return {
        "type": "BlockStored", "dp_rank": rank,
        "block_hashes": [hexh(h) for h in hashes],
        "parent_block_hash": None if parent is None else hexh(parent),
        "token_ids": flat(tokens), "block_size": block_size,
        "lora_id": lora_id, "lora_name": lora_name, "medium": medium,
        "group_idx": group_idx, "kv_cache_spec_kind": kind,
    }


def removed_json(rank, hashes, medium=None):
    return {"type": "BlockRemoved", "dp_rank": rank,
            "block_hashes": [hexh(h) for h in hashes], "medium": medium}


def cleared_json(rank):
    return {"type": "AllBlocksCleared", "dp_rank": rank}


TOK8 = [1, 2, 3, 4, 5, 6, 7, 8]
FIXTURES = {}

# vLLM 2026+: map batch, map events (msgspec tag field "type"), defaults omitted, unknown keys.
FIXTURES["vllm-map"] = (
    {"ts": 1764500000.25, "events": [
        {"type": "BlockStored", "block_hashes": [H1, H2], "parent_block_hash": None,
         "token_ids": TOK8, "block_size": 4, "lora_id": None, "medium": "GPU",
         "lora_name": None, "extra_keys": [["tenant-a"], None], "group_idx": 0,
         "kv_cache_spec_kind": "full_attention", "kv_cache_spec_sliding_window": None,
         "future_field": {"nested": [1, 2, 3]}},
        {"type": "BlockRemoved", "block_hashes": [H2], "medium": "GPU", "group_idx": 0},
        {"type": "SomethingNew", "payload": [1, 2]},
        {"type": "AllBlocksCleared"},
    ], "data_parallel_rank": 2},
    [stored_json(2, [H1, H2], None, TOK8, 4, medium="GPU", group_idx=0, kind="full_attention"),
     removed_json(2, [H2], "GPU"), cleared_json(2)],
)

# vLLM before the map format: array batch [ts, events, dp_rank], array events, all fields.
FIXTURES["vllm-array"] = (
    [1764500000.5, [
        ["BlockStored", [H1], None, [1, 2, 3, 4], 4, None, "GPU", "adapter-x",
         [["adapter-x"]], 1, "sliding_window", 128],
        ["BlockStored", [H2, H3], H1, TOK8, 4, 7, None, None],
        ["BlockRemoved", [H3], None, 1],
        ["AllBlocksCleared"],
    ], 0],
    [stored_json(0, [H1], None, [1, 2, 3, 4], 4, None, "adapter-x", "GPU", 1, "sliding_window"),
     stored_json(0, [H2, H3], H1, TOK8, 4, 7),
     removed_json(0, [H3]), cleared_json(0)],
)

# Oldest vLLM: array batch of two elements (no rank), events with trailing fields absent.
FIXTURES["vllm-array-minimal"] = (
    [1764500001.0, [
        ["BlockStored", [H1], None, [9, 9, 9, 9], 4],
        ["BlockRemoved", [H1]],
    ]],
    [stored_json(0, [H1], None, [9, 9, 9, 9], 4), removed_json(0, [H1])],
)

# SGLang: array events up to extra_keys, bigram token pairs, a metadata map holding the salt in
# the lora_name position, unknown event tag.
FIXTURES["sglang-bigram-salt"] = (
    [1764500002.0, [
        ["BlockStored", [H1], None, [[10, 11], [11, 12], [12, 13], [13, 14]], 4, None, None,
         {"cache_salt": "tenant-b"}, None],
        ["BlockStored", [H2], H1, [[14, 15], [15, 16], [16, 17], [17, 18]], 4],
        ["Unheard", 1, 2, 3],
    ], 1],
    [stored_json(1, [H1], None, [[10, 11], [11, 12], [12, 13], [13, 14]], 4),
     stored_json(1, [H2], H1, [[14, 15], [15, 16], [16, 17], [17, 18]], 4)],
)

# Hashes as bytes (sha256 digests: last 8 bytes, big-endian), as negative i64 and as u64 > 2^63.
SHA = bytes(range(32))
SHORT = b"\x01\x02"
FIXTURES["hash-encodings"] = (
    {"ts": 1.0, "events": [
        {"type": "BlockStored", "block_hashes": [SHA, NEG, BIG], "parent_block_hash": SHORT,
         "token_ids": list(range(12)), "block_size": 4, "lora_id": None, "medium": None,
         "lora_name": None},
        {"type": "BlockRemoved", "block_hashes": [SHA, NEG, BIG], "medium": None},
    ]},
    [stored_json(0, [SHA, NEG, BIG], SHORT, list(range(12)), 4),
     removed_json(0, [SHA, NEG, BIG])],
)

# A lower tier (CPU offload) and a LoRA name.
FIXTURES["lower-tier-lora"] = (
    {"ts": 2.0, "events": [
        {"type": "BlockStored", "block_hashes": [H1], "parent_block_hash": None,
         "token_ids": [5, 6, 7, 8], "block_size": 4, "lora_id": 3, "medium": "CPU",
         "lora_name": "sql-lora"},
        {"type": "BlockRemoved", "block_hashes": [H1], "medium": "CPU"},
    ], "data_parallel_rank": None},
    [stored_json(0, [H1], None, [5, 6, 7, 8], 4, 3, "sql-lora", "CPU"),
     removed_json(0, [H1], "CPU")],
)

# Empty events list.
FIXTURES["empty-events"] = ([3.0, [], 0], [])

STORED_OK = ["BlockStored", [H1], None, [1, 2, 3, 4], 4]
GOOD = pack([1.0, [STORED_OK], 0])
BAD = {
    "empty": (b"", "EMPTY"),
    "truncated": (GOOD[: len(GOOD) - 3], "TRUNCATED"),
    "not-a-batch": (pack("hello"), "WRONG_TYPE"),
    "ts-string": (pack(["yesterday", [], 0]), "WRONG_TYPE"),
    "events-not-array": (pack([1.0, {"a": 1}, 0]), "WRONG_TYPE"),
    "hash-string": (pack([1.0, [["BlockStored", ["abc"], None, [1, 2, 3, 4], 4]]]), "WRONG_TYPE"),
    "token-negative": (pack([1.0, [["BlockStored", [H1], None, [1, -2, 3, 4], 4]]]), "INVALID"),
    "stored-too-short": (pack([1.0, [["BlockStored", [H1], None]]]), "INVALID"),
    "map-event-no-type": (pack([1.0, [{"block_hashes": [H1]}]]), "INVALID"),
    "batch-map-no-events": (pack({"ts": 1.0}), "INVALID"),
    "negative-rank": (pack([1.0, [], -1]), "INVALID"),
    "trailing-bytes": (GOOD + b"\xc0", "TRAILING_BYTES"),
    # array32 header announcing 2,000,000,000 events, then nothing.
    "huge-array": (b"\x93\xcb" + struct.pack(">d", 1.0) + b"\xdd" + struct.pack(">I", 2_000_000_000),
                   "OVERSIZED"),
    # str32 header announcing 2 GiB inside an event tag.
    "huge-string": (b"\x92\xcb" + struct.pack(">d", 1.0) + b"\x91\x91\xdb" + struct.pack(">I", 2**31),
                    "OVERSIZED"),
    "never-used-byte": (pack([1.0, [["Unknown", 1]]])[:-1] + b"\xc1", "INVALID"),
}


def main():
    for name, (batch, expected) in FIXTURES.items():
        with open(name + ".msgpack", "wb") as f:
            f.write(pack(batch))
        with open(name + ".jsonl", "w") as f:
            for e in expected:
                f.write(json.dumps(e, separators=(",", ":")) + "\n")
    for name, (payload, kind) in BAD.items():
        with open("bad-" + name + ".msgpack", "wb") as f:
            f.write(payload)
        with open("bad-" + name + ".kind", "w") as f:
            f.write(kind + "\n")
    print("wrote %d valid and %d malformed fixtures" % (len(FIXTURES), len(BAD)))


if __name__ == "__main__":
    main()
