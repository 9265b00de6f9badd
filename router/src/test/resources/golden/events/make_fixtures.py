#!/usr/bin/env python3
"""Builds the KV-event msgpack fixtures and their expected `events decode` output.

Run from this directory with the pinned packages of requirements.txt and the pinned engine wheels
(build/engines.properties), e.g. from the repository root:
    PY=$(build/python-env.sh venv event-fixtures router/src/test/resources/golden/events/requirements.txt | tail -1)
    $PY router/src/test/resources/golden/events/make_fixtures.py \
        --vllm-wheel "$(build/python-env.sh wheel vllm==0.33.0 | tail -1)" \
        --sglang-wheel "$(build/python-env.sh wheel sglang==0.5.23 | tail -1)"
Writes NAME.msgpack (one raw batch payload, the last ZMQ frame), NAME.jsonl (the expected
`infera-router events decode` output) and, when the decoder must skip events, NAME.skipped (one
`reason count` line per drop reason) for every valid shape; bad-NAME.msgpack plus bad-NAME.kind
(the expected EventDecodeException kind) for batches that cannot be decoded at all. The expected
output is computed here, independently of the Java decoder, from the same event description.

The vllm-0.33.0 and sglang-0.5.23 payloads are encoded by the engines' own event classes
(loaded from the wheels with minimal import shims, nothing installed) exactly as their
ZmqEventPublisher encodes a batch; vLLM's extra_keys go through the wheel's own
to_event_extra_keys. UpstreamFixturesTest re-runs this script and compares every file.
"""
import argparse
import ast
import json
import logging
import os
import struct
import sys
import types
import zipfile

import msgpack

H1, H2, H3 = 0x1111111111111111, 0x2222222222222222, 0x3333333333333333
H4, H5, H6 = 0x4444444444444444, 0x5555555555555555, 0x6666666666666666
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
                medium=None, group_idx=None, kind=None, salt=None):
    return {
        "type": "BlockStored", "dp_rank": rank,
        "block_hashes": [hexh(h) for h in hashes],
        "parent_block_hash": None if parent is None else hexh(parent),
        "token_ids": flat(tokens), "block_size": block_size,
        "lora_id": lora_id, "lora_name": lora_name, "cache_salt": salt, "medium": medium,
        "group_idx": group_idx, "kv_cache_spec_kind": kind,
    }


def removed_json(rank, hashes, medium=None):
    return {"type": "BlockRemoved", "dp_rank": rank,
            "block_hashes": [hexh(h) for h in hashes], "medium": medium}


def cleared_json(rank, medium=None):
    if medium is None:
        return {"type": "AllBlocksCleared", "dp_rank": rank}
    return {"type": "AllBlocksCleared", "medium": medium, "dp_rank": rank}


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
    [stored_json(2, [H1, H2], None, TOK8, 4, medium="GPU", group_idx=0, kind="full_attention",
                 salt="tenant-a"),
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

# ATOM (ROCm/ATOM at ffdf3bb5, atom/distributed/kv_events.py): vLLM's array layout from msgspec
# array_like structs, which encode every field (omit_defaults does not shorten arrays), so events
# carry all their trailing nils and the batch a nil rank. The same bytes as ATOM's own classes
# give under msgspec 0.23.0 (compared when this fixture was written). Blocks a decode worker
# received over the PD hand-over are stored with medium REMOTE (a lower tier to the router);
# AllBlocksCleared has a medium slot; BlockTransferred is read as a removal from its source tier.
FIXTURES["atom-array"] = (
    [1764500002.0, [
        ["BlockStored", [BIG, H2], None, TOK8, 4, None, "GPU", None, None, None, None, None],
        ["BlockStored", [H3], H2, [9, 10, 11, 12], 4, None, "REMOTE", None, None, None, None,
         None],
        ["BlockRemoved", [H3], "GPU", None],
        ["BlockTransferred", [H1], "GPU", "CPU", None],
        ["AllBlocksCleared", "CPU"],
        ["AllBlocksCleared", None],
    ], None],
    [stored_json(0, [BIG, H2], None, TOK8, 4, medium="GPU"),
     stored_json(0, [H3], H2, [9, 10, 11, 12], 4, medium="REMOTE"),
     removed_json(0, [H3], "GPU"), removed_json(0, [H1], "GPU"),
     cleared_json(0, "CPU"), cleared_json(0)],
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
    [stored_json(1, [H1], None, [[10, 11], [11, 12], [12, 13], [13, 14]], 4, salt="tenant-b"),
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

# One bad event drops only itself: a hash of the wrong type, a negative token, a BlockStored too
# short, a map event without a type and a device-tier BlockStored of block size 0, around one
# good event that is kept.
FIXTURES["malformed-events-dropped"] = (
    [1.5, [
        ["BlockStored", ["abc"], None, [1, 2, 3, 4], 4],
        ["BlockStored", [H1], None, [1, -2, 3, 4], 4],
        ["BlockStored", [H1], None],
        {"block_hashes": [H1]},
        {"type": "BlockStored", "block_hashes": [H2], "parent_block_hash": None, "token_ids": [],
         "block_size": 0, "lora_id": None, "medium": "GPU", "lora_name": None},
        ["BlockStored", [H3], None, [1, 2, 3, 4], 4],
    ], 0],
    [stored_json(0, [H3], None, [1, 2, 3, 4], 4)],
    {"malformed_event": 5},
)

# Typed extra_keys (tagged structs, for engines that publish them; vLLM 0.33.0 does not): block
# 0 names the LoRA, a multimodal item, the salt and a prompt-embeds digest; lora_name is absent,
# so the LoRA comes from the typed key. A legacy value and a tagged tuple on the second event.
DIGEST = bytes(range(32))
FIXTURES["vllm-typed-extra-keys"] = (
    [4.0, [
        {"type": "BlockStored", "block_hashes": [H1, H2], "parent_block_hash": None,
         "token_ids": TOK8, "block_size": 4, "lora_id": None, "medium": "GPU",
         "extra_keys": [
             [{"type": "lora", "name": "sql-lora"},
              {"type": "mm", "modality": "image", "hash": "img-1", "block_offset": 2},
              {"type": "cache_salt", "salt": "tenant-c"},
              {"type": "prompt_embeds", "hash": DIGEST},
              {"type": "from-the-future", "x": 1}],
             [{"type": "lora", "name": "sql-lora"}]],
         "group_idx": 0},
        {"type": "BlockStored", "block_hashes": [H3], "parent_block_hash": None,
         "token_ids": [1, 2, 3, 4], "block_size": 4, "lora_id": None, "medium": "GPU",
         "lora_name": None, "extra_keys": [[["cache_salt", "tenant-d"], {"type": "legacy",
                                                                         "value": "old-key"}]]},
        {"type": "BlockStored", "block_hashes": [H4], "parent_block_hash": None,
         "token_ids": [5, 6, 7, 8], "block_size": 4, "lora_id": None, "medium": "GPU",
         "lora_name": None, "extra_keys": [[{"type": "legacy", "value": "tenant-e"}]]},
    ]],
    [stored_json(0, [H1, H2], None, TOK8, 4, lora_name="sql-lora", medium="GPU", group_idx=0,
                 salt="tenant-c"),
     stored_json(0, [H3], None, [1, 2, 3, 4], 4, medium="GPU", salt="tenant-d"),
     stored_json(0, [H4], None, [5, 6, 7, 8], 4, medium="GPU", salt="tenant-e")],
)

STORED_OK = ["BlockStored", [H1], None, [1, 2, 3, 4], 4]
GOOD = pack([1.0, [STORED_OK], 0])
BAD_THEN_CUT = pack([1.0, [["BlockStored", [H1], None, [1, -2, 3, 4], 4], STORED_OK], 0])
BAD = {
    "empty": (b"", "EMPTY"),
    "truncated": (GOOD[: len(GOOD) - 3], "TRUNCATED"),
    # A bad event cannot be stepped over when the bytes after it are cut: the batch fails.
    "truncated-after-bad-event": (BAD_THEN_CUT[: len(BAD_THEN_CUT) - 4], "TRUNCATED"),
    "not-a-batch": (pack("hello"), "WRONG_TYPE"),
    "ts-string": (pack(["yesterday", [], 0]), "WRONG_TYPE"),
    "events-not-array": (pack([1.0, {"a": 1}, 0]), "WRONG_TYPE"),
    "events-nil": (pack([1.0, None, 0]), "WRONG_TYPE"),
    "rank-string": (pack([1.0, [], "zero"]), "WRONG_TYPE"),
    "batch-too-short": (pack([1.0]), "INVALID"),
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


# ---------------------------------------------------------------- the engines' own encoders

def _module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def _stub(name):
    """A module whose every attribute is a placeholder class (zmq: only named, never used here)."""
    m = _module(name)
    m.__getattr__ = lambda attr: type(attr, (), {})
    return m


def _load(wheel, path, name):
    """Executes one module of a wheel, unchanged, under its own name."""
    with zipfile.ZipFile(wheel) as z:
        src = z.read(path).decode("utf-8")
    mod = _module(name)
    exec(compile(src, wheel + "!" + path, "exec"), mod.__dict__)
    return mod


def _function(wheel, path, fn, env):
    """One top-level function of a wheel's module, compiled from its own source."""
    with zipfile.ZipFile(wheel) as z:
        src = z.read(path).decode("utf-8")
    tree = ast.parse(src)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == fn)
    ns = dict(env)
    exec(compile(ast.Module(body=[node], type_ignores=[]), wheel + "!" + path, "exec"), ns)
    return ns[fn]


def vllm_fixture(wheel):
    """vLLM 0.33.0: KVEventBatch (array_like) of tagged map events, as ZmqEventPublisher sends."""
    import msgspec
    from typing import Any, Iterable
    for pkg in ("vllm", "vllm.config", "vllm.utils", "vllm.v1", "vllm.v1.core",
                "vllm.distributed"):
        _module(pkg)
    _stub("zmq")
    _module("vllm.config.kv_events", KVEventsConfig=type("KVEventsConfig", (), {}))
    _module("vllm.logger", init_logger=logging.getLogger)
    _module("vllm.utils.network_utils", get_ip=None, get_tcp_uri=None,
            is_valid_ipv6_address=None, split_zmq_path=None)
    _module("vllm.v1.core.kv_cache_utils", ExternalBlockHash=bytes | int)
    kv = _load(wheel, "vllm/distributed/kv_events.py", "vllm.distributed.kv_events")
    to_event = _function(wheel, "vllm/v1/core/kv_cache_utils.py", "to_event_extra_keys",
                         {"Any": Any, "Iterable": Iterable})
    # Block-hash extra keys as generate_block_hash_extra_keys builds them (tagged tuples).
    lora = ("lora", "sql-lora", "/adapters/sql")
    salted = to_event([(("cache_salt", "tenant-a"),), None])
    everything = to_event([
        (lora, ("mm", "img-1", 2), ("cache_salt", "tenant-b"), ("prompt_embeds", DIGEST)),
        (lora, ("mm", "img-1", -2)),
    ])
    child = to_event([(lora,)])
    # KVCacheManager.take_events fills in the group's spec kind on every store.
    FULL = "full_attention"
    batch = kv.KVEventBatch(ts=1764500010.5, events=[
        kv.BlockStored(block_hashes=[H1, H2], parent_block_hash=None, token_ids=TOK8,
                       block_size=4, lora_id=None, medium=kv.MEDIUM_GPU, lora_name=None,
                       extra_keys=salted, group_idx=0, kv_cache_spec_kind=FULL,
                       session_id="session-1"),
        kv.BlockStored(block_hashes=[H3, H4], parent_block_hash=None, token_ids=TOK8,
                       block_size=4, lora_id=1, medium=kv.MEDIUM_GPU, lora_name="sql-lora",
                       extra_keys=everything, group_idx=0, kv_cache_spec_kind=FULL),
        kv.BlockStored(block_hashes=[H5], parent_block_hash=H4, token_ids=[9, 10, 11, 12],
                       block_size=4, lora_id=1, medium=kv.MEDIUM_GPU, lora_name="sql-lora",
                       extra_keys=child, group_idx=0, kv_cache_spec_kind=FULL,
                       lookahead_token_ids=[[13]]),
        # The offloading connector's placeholder for a chunk it has no payload for.
        kv.BlockStored(block_hashes=[H6], parent_block_hash=None, token_ids=[], block_size=0,
                       lora_id=None, medium=kv.MEDIUM_CPU, lora_name=None, group_idx=0,
                       locality="LOCAL", ownership="tier-2"),
        # A self-describing offloaded chunk: a lower tier, decoded (the index keeps it out).
        kv.BlockStored(block_hashes=[H1], parent_block_hash=None, token_ids=[1, 2, 3, 4],
                       block_size=4, lora_id=None, medium=kv.MEDIUM_CPU, lora_name=None,
                       group_idx=0, kv_cache_spec_kind="full_attention", locality="LOCAL"),
        kv.BlockRemoved(block_hashes=[H2], medium=kv.MEDIUM_GPU, group_idx=0),
        kv.BlockRemoved(block_hashes=[H6], medium=kv.MEDIUM_STORAGE, group_idx=0,
                        locality="REMOTE", ownership="tier-2"),
        kv.AllBlocksCleared(),
    ], data_parallel_rank=1)
    payload = msgspec.msgpack.Encoder().encode(batch)
    expected = [
        stored_json(1, [H1, H2], None, TOK8, 4, medium="GPU", group_idx=0, kind=FULL,
                    salt="tenant-a"),
        stored_json(1, [H3, H4], None, TOK8, 4, 1, "sql-lora", "GPU", 0, FULL, salt="tenant-b"),
        stored_json(1, [H5], H4, [9, 10, 11, 12], 4, 1, "sql-lora", "GPU", 0, FULL),
        stored_json(1, [H1], None, [1, 2, 3, 4], 4, medium="CPU", group_idx=0,
                    kind="full_attention"),
        removed_json(1, [H2], "GPU"), removed_json(1, [H6], "STORAGE"), cleared_json(1),
    ]
    return payload, expected, {"offload_placeholder": 1}


def sglang_fixture(wheel):
    """SGLang 0.5.23: EventBatch [ts, events, attn_dp_rank] of tagged map events, one per page."""
    import msgspec
    for pkg in ("sglang", "sglang.srt", "sglang.srt.utils", "sglang.srt.disaggregation"):
        _module(pkg)
    _stub("zmq")
    _module("pydantic", BaseModel=type("BaseModel", (), {}))
    _module("sglang.srt.runtime_context", get_parallel=None)
    _module("sglang.srt.utils.network", NetworkAddress=None)
    kv = _load(wheel, "sglang/srt/disaggregation/kv_events.py",
               "sglang.srt.disaggregation.kv_events")
    gpu, cpu = kv.StorageMedium.GPU, kv.StorageMedium.CPU
    bigram = [[20, 21], [21, 22], [22, 23], [23, 24]]
    batch = kv.KVEventBatch(ts=1764500020.25, events=[
        kv.BlockStored(block_hashes=[H1], parent_block_hash=None, token_ids=[1, 2, 3, 4],
                       block_size=4, lora_id=None, medium=gpu, cache_salt="tenant-s",
                       session_id="session-9"),
        kv.BlockStored(block_hashes=[H2], parent_block_hash=H1, token_ids=[5, 6, 7, 8],
                       block_size=4, lora_id=None, medium=gpu, cache_salt="tenant-s",
                       session_id="session-9"),
        kv.BlockStored(block_hashes=[H3], parent_block_hash=None, token_ids=bigram,
                       block_size=4, lora_id=None, medium=gpu, lora_name="sql-lora"),
        kv.BlockStored(block_hashes=[H4], parent_block_hash=None, token_ids=[1, 2, 3, 4],
                       block_size=4, lora_id=None, medium=cpu),
        kv.BlockRemoved(block_hashes=[H2], medium=gpu),
        kv.AllBlocksCleared(),
    ], attn_dp_rank=None)
    payload = msgspec.msgpack.Encoder().encode(batch)
    expected = [
        stored_json(0, [H1], None, [1, 2, 3, 4], 4, medium="GPU", salt="tenant-s"),
        stored_json(0, [H2], H1, [5, 6, 7, 8], 4, medium="GPU", salt="tenant-s"),
        stored_json(0, [H3], None, bigram, 4, lora_name="sql-lora", medium="GPU"),
        stored_json(0, [H4], None, [1, 2, 3, 4], 4, medium="CPU_PINNED"),
        removed_json(0, [H2], "GPU"), cleared_json(0),
    ]
    return payload, expected, {}


SKIP_ORDER = ["unknown_event_type", "offload_placeholder", "malformed_event"]
SKIPPED = {"vllm-map": {"unknown_event_type": 1}, "sglang-bigram-salt": {"unknown_event_type": 1}}


def write(out, name, payload, expected, skipped):
    with open(os.path.join(out, name + ".msgpack"), "wb") as f:
        f.write(payload)
    with open(os.path.join(out, name + ".jsonl"), "w") as f:
        for e in expected:
            f.write(json.dumps(e, separators=(",", ":")) + "\n")
    if skipped:
        with open(os.path.join(out, name + ".skipped"), "w") as f:
            for reason in SKIP_ORDER:
                if skipped.get(reason):
                    f.write("%s %d\n" % (reason, skipped[reason]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--vllm-wheel", required=True, help="vllm-0.33.0-*.whl")
    ap.add_argument("--sglang-wheel", required=True, help="sglang-0.5.23-*.whl")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, spec in FIXTURES.items():
        batch, expected = spec[0], spec[1]
        skipped = spec[2] if len(spec) > 2 else SKIPPED.get(name, {})
        write(args.out, name, pack(batch), expected, skipped)
    write(args.out, "vllm-0.33.0", *vllm_fixture(args.vllm_wheel))
    write(args.out, "sglang-0.5.23", *sglang_fixture(args.sglang_wheel))
    for name, (payload, kind) in BAD.items():
        with open(os.path.join(args.out, "bad-" + name + ".msgpack"), "wb") as f:
            f.write(payload)
        with open(os.path.join(args.out, "bad-" + name + ".kind"), "w") as f:
            f.write(kind + "\n")
    print("wrote %d valid and %d malformed fixtures" % (len(FIXTURES) + 2, len(BAD)))


if __name__ == "__main__":
    main()
