"""An engine's own KV-event publisher, driven over stdin by the conformance tests.

Usage: python engine_driver.py vllm|sglang WHEEL

Loads the publisher module straight from the engine's wheel (vLLM:
vllm/distributed/kv_events.py, SGLang: sglang/srt/disaggregation/kv_events.py) with shims for
its few in-package imports only, and the engine's own helpers that shape what it publishes
(vLLM's block-hash and extra-keys functions from vllm/v1/core/kv_cache_utils.py, SGLang's
hash_str_to_int64 from sglang/srt/mem_cache/utils.py), taken out of their modules by name so
that their heavy imports (torch) are never run. Nothing of the engines is copied here.

Protocol: one JSON object per line on stdin, one JSON answer per line on stdout
({"ok": true, ...} or {"ok": false, "error": "..."}). Logs go to stderr.

  {"op": "start", "dp_size": 1, "topic": "kv-events"}
      binds one ZmqEventPublisher per rank: PUB on base + rank, replay ROUTER on
      replay base + rank (the engine's own offset_endpoint_port). Answers the rank-0 endpoints.
  {"op": "request", "id": "r1", "tokens": [...], "block_size": 16, "lora": null, "salt": null}
      declares a request; its engine block hashes are computed the way the engine does.
  {"op": "publish", "rank": 0, "events": [EVENT...], "drop_live": false}
      one KVEventBatch; with drop_live the PUB send is lost on the wire (the batch is still
      sequenced and kept in the replay buffer, as when a subscriber misses it).
      EVENT: {"type": "store", "req": "r1", "from": 0, "to": 2}   blocks [from, to) of r1
             {"type": "remove", "req": "r1", "from": 1, "to": 2}
             {"type": "clear"}
             {"type": "placeholder", "req": "r1", "block": 0, "medium": "CPU"}
                 vLLM's offloading connector's BlockStored for a block it did not see stored
  {"op": "await_subscriber", "rank": 0}   until a subscriber is connected to that PUB socket
  {"op": "restart"}   every rank's publisher shut down and a new one bound on the same ports
  {"op": "stop"}
"""

import ast
import dataclasses
import hashlib
import json
import logging
import os
import pickle
import socket
import sys
import threading
import time
import types
import zipfile

import zmq
from zmq.utils.monitor import recv_monitor_message

logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="driver %(levelname)s %(message)s")
log = logging.getLogger("driver")

ENGINE = sys.argv[1]
WHEEL = zipfile.ZipFile(sys.argv[2])


def source(path):
    return WHEEL.read(path).decode("utf-8")


def stub_module(name, **attrs):
    """A placeholder for an in-package module the publisher imports (parents included)."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sub = ".".join(parts[:i])
        if sub not in sys.modules:
            mod = types.ModuleType(sub)
            mod.__path__ = []
            sys.modules[sub] = mod
            if i > 1:
                setattr(sys.modules[".".join(parts[: i - 1])], parts[i - 1], mod)
    for k, v in attrs.items():
        setattr(sys.modules[name], k, v)
    return sys.modules[name]


def load_module(name, path):
    """Runs the wheel's file as module `name` (the real code, from inside the wheel)."""
    mod = types.ModuleType(name)
    mod.__file__ = sys.argv[2] + "/" + path
    parent, _, leaf = name.rpartition(".")
    stub_module(parent)
    sys.modules[name] = mod
    setattr(sys.modules[parent], leaf, mod)
    exec(compile(source(path), mod.__file__, "exec"), mod.__dict__)
    return mod


def load_functions(path, names, namespace):
    """The wheel file's top-level functions `names`, defined in `namespace`.

    Only those definitions run (annotations unevaluated), so the module's own imports, which
    pull in torch, never do.
    """
    tree = ast.parse(source(path))
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    missing = set(names) - {n.name for n in found}
    if missing:
        raise RuntimeError(f"{path} has no {sorted(missing)}: the engine changed, update the driver")
    code = compile(
        ast.Module(body=found, type_ignores=[]),
        sys.argv[2] + "/" + path,
        "exec",
        flags=__import__("__future__").annotations.compiler_flag,
        dont_inherit=True,
    )
    exec(code, namespace)
    return namespace


def free_port_range(n):
    """A base port with base .. base + n - 1 free on this machine (bind-tested)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n > 65535:
            continue
        ok = True
        for p in range(base, base + n):
            with socket.socket() as s:
                try:
                    s.bind(("0.0.0.0", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no free port range")


class Subscribers:
    """Counts the connections to a PUB socket, from the socket's monitor.

    ZMQ's slow joiner: what a PUB socket sends before a subscriber's subscription reaches it is
    lost for that subscriber, so the tests wait for the router (or the relay) to be connected
    before publishing live.
    """

    def __init__(self, sock):
        self.count = 0
        self.cond = threading.Condition()
        self.mon = sock.get_monitor_socket(zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        threading.Thread(target=self.run, daemon=True, name="pub-monitor").start()

    def run(self):
        while True:
            try:
                ev = recv_monitor_message(self.mon)
            except zmq.ZMQError:
                return
            with self.cond:
                if ev["event"] == zmq.EVENT_ACCEPTED:
                    self.count += 1
                elif ev["event"] == zmq.EVENT_DISCONNECTED:
                    self.count -= 1
                elif ev["event"] == zmq.EVENT_MONITOR_STOPPED:
                    return
                self.cond.notify_all()

    def wait(self, n, timeout):
        with self.cond:
            return self.cond.wait_for(lambda: self.count >= n, timeout)


class MonitoredContext(zmq.Context):
    """The publishers' zmq.Context.instance(): a monitor on each PUB socket before it binds.

    Attached before the bind, so that a subscriber reconnecting to a restarted engine at once is
    counted too. Sockets are otherwise exactly what the engine's code makes of them.
    """

    pub_monitors = []

    def socket(self, socket_type, *args, **kwargs):
        sock = super().socket(socket_type, *args, **kwargs)
        if socket_type == zmq.PUB:
            MonitoredContext.pub_monitors.append(Subscribers(sock))
        return sock


def await_free(ports, timeout=10.0):
    """Until every port can be bound again (a closed ZMQ socket lets go of it asynchronously)."""
    deadline = time.time() + timeout
    for port in ports:
        while True:
            with socket.socket() as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    s.bind(("0.0.0.0", port))
                    break
                except OSError:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.05)


class LossyPub:
    """The publisher's PUB socket, which can lose the next sends (a subscriber missing them)."""

    def __init__(self, sock):
        self.sock = sock
        self.drop = 0

    def send_multipart(self, frames, *a, **kw):
        if self.drop > 0:
            self.drop -= 1
            return None
        return self.sock.send_multipart(frames, *a, **kw)

    def __getattr__(self, name):
        return getattr(self.sock, name)


# ----------------------------------------------------------------------------- engines


class Vllm:
    def __init__(self):
        stub_module("vllm.logger", init_logger=logging.getLogger)
        # kv_events.py only needs these for tcp://*:0, which the tests never bind.
        stub_module(
            "vllm.utils.network_utils",
            get_ip=lambda: "127.0.0.1",
            get_tcp_uri=lambda ip, port: f"tcp://{ip}:{port}",
            is_valid_ipv6_address=lambda ip: False,
            split_zmq_path=lambda p: tuple(p.replace("tcp://", "tcp:").split(":")),
        )
        stub_module("vllm.v1.core.kv_cache_utils", ExternalBlockHash=bytes | int)
        # The real config class, with vLLM's pydantic-dataclass decorator as a plain dataclass.
        stub_module("vllm.config.utils", config=dataclasses.dataclass)
        load_module("vllm.config.kv_events", "vllm/config/kv_events.py")
        self.mod = load_module("vllm.distributed.kv_events", "vllm/distributed/kv_events.py")
        hashing = load_functions(
            "vllm/utils/hashing.py", ["sha256"], {"hashlib": hashlib, "pickle": pickle}
        )
        self.hash_fn = hashing["sha256"]
        ns = {
            "hashlib": hashlib,
            # The engine's default: integer block hashes in events.
            "envs": types.SimpleNamespace(VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=True),
            "BlockHash": lambda b: b,
            "NONE_HASH": self.hash_fn("vllm-none-hash"),
            "tensor_data": lambda t: bytes(t),
        }
        self.kcu = load_functions(
            "vllm/v1/core/kv_cache_utils.py",
            [
                "maybe_convert_block_hash",
                "hash_block_tokens",
                "_gen_mm_extra_hash_keys",
                "_gen_lora_extra_hash_keys",
                "_gen_prompt_embeds_extra_hash_keys",
                "generate_block_hash_extra_keys",
                "to_event_extra_keys",
            ],
            ns,
        )

    def publisher(self, rank, pub_base, replay_base, topic):
        return self.mod.ZmqEventPublisher(
            data_parallel_rank=rank,
            endpoint=f"tcp://*:{pub_base}",
            replay_endpoint=f"tcp://*:{replay_base}",
            topic=topic,
        )

    def batch(self, events):
        return self.mod.KVEventBatch(ts=time.time(), events=events)

    def request(self, spec):
        """A vLLM Request as far as the extra-keys functions read it, and its block hashes."""
        lora = spec.get("lora")
        req = types.SimpleNamespace(
            all_token_ids=list(spec["tokens"]),
            lora_request=(
                types.SimpleNamespace(
                    lora_name=lora, name=lora, lora_path=f"/adapters/{lora}", adapter_id=1
                )
                if lora
                else None
            ),
            cache_salt=spec.get("salt"),
            mm_features=[],
            prompt_embeds=None,
            session_id=spec.get("session"),
            block_size=spec["block_size"],
        )
        bs = req.block_size
        hashes, parent, extra = [], None, []
        for i in range(len(req.all_token_ids) // bs):
            keys, _ = self.kcu["generate_block_hash_extra_keys"](req, i * bs, (i + 1) * bs, 0)
            parent = self.kcu["hash_block_tokens"](
                self.hash_fn, parent, req.all_token_ids[i * bs : (i + 1) * bs], keys
            )
            hashes.append(parent)
            extra.append(keys)
        req.hashes = hashes
        req.extra = extra
        return req

    def ext(self, h):
        return self.kcu["maybe_convert_block_hash"](h)

    def store(self, req, a, b):
        """What BlockPool.cache_full_blocks publishes for blocks [a, b) of the request."""
        bs = req.block_size
        return self.mod.BlockStored(
            block_hashes=[self.ext(h) for h in req.hashes[a:b]],
            parent_block_hash=self.ext(req.hashes[a - 1]) if a > 0 else None,
            token_ids=req.all_token_ids[a * bs : b * bs],
            block_size=bs,
            lora_id=req.lora_request.adapter_id if req.lora_request else None,
            medium=self.mod.MEDIUM_GPU,
            lora_name=req.lora_request.name if req.lora_request else None,
            extra_keys=self.kcu["to_event_extra_keys"](req.extra[a:b]),
            group_idx=0,
            session_id=req.session_id,
        )

    def stores(self, req, a, b):
        return [self.store(req, a, b)]

    def remove(self, req, a, b):
        return self.mod.BlockRemoved(
            block_hashes=[self.ext(h) for h in req.hashes[a:b]], medium=self.mod.MEDIUM_GPU
        )

    def placeholder(self, req, block, medium):
        """The offloading connector's placeholder (vllm/distributed/kv_transfer/.../events.py)."""
        return self.mod.BlockStored(
            block_hashes=[self.ext(req.hashes[block])],
            parent_block_hash=None,
            token_ids=[],
            lora_id=None,
            block_size=0,
            medium=medium,
            lora_name=None,
            group_idx=0,
            locality="LOCAL",
            ownership=None,
        )

    def clear(self):
        return self.mod.AllBlocksCleared()


class NetworkAddress:
    """Stand-in for sglang.srt.utils.network.NetworkAddress (host:port parsing only)."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.is_ipv6 = ":" in host

    @classmethod
    def parse(cls, text):
        host, _, port = text.rpartition(":")
        return cls(host.strip("[]"), int(port))

    def to_tcp(self):
        return f"tcp://[{self.host}]:{self.port}" if self.is_ipv6 else f"tcp://{self.host}:{self.port}"


class Sglang:
    def __init__(self):
        stub_module(
            "sglang.srt.runtime_context",
            get_parallel=lambda: types.SimpleNamespace(pp_rank=0, attn_tp_rank=0, attn_cp_rank=0),
        )
        stub_module("sglang.srt.utils.network", NetworkAddress=NetworkAddress)
        self.mod = load_module(
            "sglang.srt.disaggregation.kv_events", "sglang/srt/disaggregation/kv_events.py"
        )
        self.utils = load_functions(
            "sglang/srt/mem_cache/utils.py", ["hash_str_to_int64"], {}
        )

    def publisher(self, rank, pub_base, replay_base, topic):
        return self.mod.ZmqEventPublisher(
            attn_dp_rank=rank,
            endpoint=f"tcp://*:{pub_base}",
            replay_endpoint=f"tcp://*:{replay_base}",
            topic=topic,
        )

    def batch(self, events):
        return self.mod.KVEventBatch(ts=time.time(), events=events)

    def request(self, spec):
        """Page hashes as SGLang's EventRecorder chains them (sglang/srt/mem_cache/events.py).

        The per-page SHA-256 is SGLang's native (C++) hash in the engine; a SHA-256 chain over
        the page's tokens stands in for it (engine hashes are opaque to consumers). Salted
        chains start from SGLang's salt seed; the namespace seed and hash_str_to_int64 are the
        engine's own.
        """
        lora = spec.get("lora")
        salt = spec.get("salt")
        bs = spec["block_size"]
        tokens = list(spec["tokens"])
        prior = (
            hashlib.sha256(b"sglang-cache-salt-v1\0" + salt.encode("utf-8")).hexdigest()
            if salt is not None
            else None
        )
        # SGLang's default format namespaces the event hashes by the LoRA's extra_key only.
        seed = self.mod.kv_event_namespace_seed(
            extra_key=("lora-id-" + lora) if lora else None, cache_salt=None
        )
        hashes = []
        for i in range(len(tokens) // bs):
            d = hashlib.sha256()
            if prior:
                d.update(bytes.fromhex(prior))
            for t in tokens[i * bs : (i + 1) * bs]:
                d.update(t.to_bytes(4, "little"))
            prior = d.hexdigest()
            hashes.append(
                self.mod.namespaced_block_hash(
                    self.utils["hash_str_to_int64"](prior), namespace_seed=seed
                )
            )
        return types.SimpleNamespace(
            tokens=tokens,
            block_size=bs,
            hashes=hashes,
            lora=lora,
            salt=salt,
            session_id=spec.get("session"),
        )

    def stores(self, req, a, b):
        """One BlockStored per page, chained on the previous page (EventRecorder.record_store)."""
        bs = req.block_size
        out = []
        for i in range(a, b):
            out.append(
                self.mod.BlockStored(
                    block_hashes=[req.hashes[i]],
                    parent_block_hash=req.hashes[i - 1] if i > 0 else None,
                    token_ids=req.tokens[i * bs : (i + 1) * bs],
                    block_size=bs,
                    lora_id=None,
                    medium=self.mod.StorageMedium.GPU,
                    cache_salt=req.salt,
                    session_id=req.session_id,
                    lora_name=req.lora,
                )
            )
        return out

    def remove(self, req, a, b):
        return self.mod.BlockRemoved(
            block_hashes=list(req.hashes[a:b]), medium=self.mod.StorageMedium.GPU
        )

    def placeholder(self, req, block, medium):
        raise ValueError("placeholders are vLLM's offloading connector's; SGLang has none")

    def clear(self):
        return self.mod.AllBlocksCleared()


# ----------------------------------------------------------------------------- loop


class Driver:
    def __init__(self, engine):
        self.engine = Vllm() if engine == "vllm" else Sglang()
        self.pubs = []
        self.lossy = []
        self.requests = {}
        self.cfg = None

    def bind(self):
        dp, topic = self.cfg["dp_size"], self.cfg["topic"]
        self.pubs, self.lossy, self.subs = [], [], []
        for rank in range(dp):
            p = self.engine.publisher(rank, self.cfg["pub_base"], self.cfg["replay_base"], topic)
            self.subs.append(MonitoredContext.pub_monitors.pop())
            lossy = LossyPub(p._pub)
            p._pub = lossy
            self.pubs.append(p)
            self.lossy.append(lossy)

    def shutdown(self):
        for p in self.pubs:
            p.shutdown()
        self.pubs = []

    def handle(self, cmd):
        op = cmd["op"]
        if op == "start":
            dp = int(cmd.get("dp_size", 1))
            pub_base = free_port_range(dp)
            replay_base = free_port_range(dp)
            while replay_base < pub_base + dp and pub_base < replay_base + dp:
                replay_base = free_port_range(dp)
            self.cfg = {
                "dp_size": dp,
                "topic": cmd.get("topic", "kv-events"),
                "pub_base": pub_base,
                "replay_base": replay_base,
            }
            self.bind()
            return {
                "pub": f"tcp://127.0.0.1:{pub_base}",
                "replay": f"tcp://127.0.0.1:{replay_base}",
                # The endpoints each rank's publisher bound, as the engine computed them.
                "bound": [[p._endpoint, p._replay_endpoint] for p in self.pubs],
            }
        if op == "request":
            self.requests[cmd["id"]] = self.engine.request(cmd)
            return {"blocks": len(self.requests[cmd["id"]].hashes)}
        if op == "publish":
            rank = int(cmd.get("rank", 0))
            events = []
            for e in cmd["events"]:
                t = e["type"]
                if t == "store":
                    events += self.engine.stores(self.requests[e["req"]], e["from"], e["to"])
                elif t == "remove":
                    events.append(self.engine.remove(self.requests[e["req"]], e["from"], e["to"]))
                elif t == "clear":
                    events.append(self.engine.clear())
                elif t == "placeholder":
                    events.append(
                        self.engine.placeholder(self.requests[e["req"]], e["block"], e["medium"])
                    )
                else:
                    raise ValueError(f"unknown event type {t}")
            pub = self.pubs[rank]
            if cmd.get("drop_live"):
                self.lossy[rank].drop += 1
            pub.publish(self.engine.batch(events))
            # The publisher thread marks each batch done once sent and kept for replay.
            pub._event_queue.join()
            return {"seq": pub._buffer[-1][0], "events": len(events)}
        if op == "await_subscriber":
            rank = int(cmd.get("rank", 0))
            if not self.subs[rank].wait(1, float(cmd.get("timeout", 20))):
                raise TimeoutError(f"no subscriber on rank {rank}'s PUB socket")
            # The handshake and the subscription follow the TCP connection.
            time.sleep(0.5)
            return {"subscribers": self.subs[rank].count}
        if op == "restart":
            self.shutdown()
            dp = self.cfg["dp_size"]
            await_free(
                [self.cfg["pub_base"] + r for r in range(dp)]
                + [self.cfg["replay_base"] + r for r in range(dp)]
            )
            self.bind()
            return {}
        if op == "stop":
            self.shutdown()
            return {"stopped": True}
        raise ValueError(f"unknown op {op}")


def main():
    zmq.Context._instance = MonitoredContext()
    zmq.Context._instance_pid = os.getpid()
    driver = Driver(ENGINE)
    print(json.dumps({"ok": True, "ready": ENGINE}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            cmd = json.loads(line)
            answer = driver.handle(cmd)
            answer["ok"] = True
        except Exception as e:  # the test reads the message
            log.exception("command failed: %s", line.strip())
            answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            cmd = {}
        print(json.dumps(answer), flush=True)
        if cmd.get("op") == "stop":
            break
    driver.shutdown()


if __name__ == "__main__":
    main()
