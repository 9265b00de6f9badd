"""Facts the operator relies on, read from the pinned vLLM and SGLang wheels themselves.

Usage: python3 engine-facts.py VLLM_WHEEL SGLANG_WHEEL MAX_RANKS PUB_ENDPOINT REPLAY_ENDPOINT

Prints one JSON object on stdout. Nothing is imported from the wheels (their packages pull in
torch): the modules are parsed with `ast`; the few small pure functions the facts need (the
engines' per-rank port offset, SGLang's choice of the publishing rank) are compiled from the
wheel's own source and called; CLI flags are collected from the engines' argument definitions.
"""

import ast
import copy
import json
import sys
import zipfile


def source(wheel, path):
    with zipfile.ZipFile(wheel) as z:
        return z.read(path).decode("utf-8")


def function(tree, name, cls=None):
    """The FunctionDef `name` (in class `cls` if given), compiled alone, as a callable."""
    scope = tree.body
    if cls is not None:
        scope = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
    node = next(n for n in scope if isinstance(n, ast.FunctionDef) and n.name == name)
    # Decorators and annotations name things this script does not import: drop them.
    node = copy.deepcopy(node)
    node.decorator_list = []
    node.returns = None
    a = node.args
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None
    module = ast.Module(body=[node], type_ignores=[])
    ast.fix_missing_locations(module)
    env = {}
    exec(compile(module, "<" + name + ">", "exec"), env)
    return env[name]


def add_argument_flags(tree):
    """Every option string passed to an `add_argument(...)` call."""
    flags = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "add_argument":
            for a in n.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("-"):
                    flags.add(a.value)
    return flags


def class_fields(tree, names):
    """(name, annotation source) of the annotated attributes of the classes `names`."""
    out = []
    for n in tree.body:
        if isinstance(n, ast.ClassDef) and n.name in names:
            for s in n.body:
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name):
                    out.append((s.target.id, ast.unparse(s.annotation), s))
    return out


def literal_strings(tree, name):
    """The strings of `NAME = Literal[...]` (nested Literals flattened through other names)."""
    assigns = {
        n.targets[0].id: n.value
        for n in tree.body
        if isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)
    }

    def walk(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, ast.Name) and node.id in assigns:
            return walk(assigns[node.id])
        if isinstance(node, ast.Subscript):
            return walk(node.slice)
        if isinstance(node, ast.Tuple):
            return set().union(*(walk(e) for e in node.elts))
        return set()

    return sorted(walk(assigns[name]))


def vllm(wheel, ranks, pub, replay):
    events = ast.parse(source(wheel, "vllm/distributed/kv_events.py"))
    offset = function(events, "offset_endpoint_port", cls="ZmqEventPublisher")
    flags = set()
    for path in ("vllm/engine/arg_utils.py", "vllm/entrypoints/common/cli_args.py"):
        flags |= add_argument_flags(ast.parse(source(wheel, path)))
    cli = ast.parse(source(wheel, "vllm/entrypoints/common/cli_args.py"))
    for name, annotation, _ in class_fields(cli, {"BaseFrontendArgs", "FrontendArgs"}):
        flags.add("--" + name.replace("_", "-"))
        if annotation == "bool":  # argparse.BooleanOptionalAction
            flags.add("--no-" + name.replace("_", "-"))
    transfer = ast.parse(source(wheel, "vllm/config/kv_transfer.py"))
    nixl = source(wheel, "vllm/distributed/kv_transfer/kv_connector/v1/nixl/connector.py")
    return {
        "pub": [offset(pub, r) for r in range(ranks)],
        "replay": [offset(replay, r) for r in range(ranks)],
        "flags": sorted(flags),
        "kvProducer": literal_strings(transfer, "KVProducer"),
        "kvConsumer": literal_strings(transfer, "KVConsumer"),
        "nixlDeprecatesKvBoth": "kv_role='kv_both' with NixlConnector is deprecated" in nixl,
    }


def sglang(wheel, ranks, pub, replay):
    events = ast.parse(source(wheel, "sglang/srt/disaggregation/kv_events.py"))
    offset = function(events, "offset_endpoint_port", cls="ZmqEventPublisher")
    publisher_rank = function(events, "select_kv_publisher_dp_rank")
    flags = set()
    with zipfile.ZipFile(wheel) as z:
        field_files = [
            n for n in z.namelist() if n.startswith("sglang/srt/arg_groups/fields/") and n.endswith(".py")
        ]
    for path in field_files:
        tree = ast.parse(source(wheel, path))
        for n in tree.body:
            if not isinstance(n, ast.ClassDef):
                continue
            for s in n.body:
                if not (isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)):
                    continue
                text = ast.unparse(s.annotation)
                if not text.startswith("A["):  # Derived values and plain attributes have no flag
                    continue
                if "no_cli=True" in text:
                    continue
                flags.add("--" + s.target.id.replace("_", "-"))
                for k in ast.walk(s.annotation):
                    if isinstance(k, ast.keyword) and k.arg == "aliases":
                        flags |= {e.value for e in k.value.elts}
    flags |= add_argument_flags(ast.parse(source(wheel, "sglang/srt/server_args.py")))
    return {
        "pub": [offset(pub, publisher_rank(1, 0, r)) for r in range(ranks)],
        "replay": [offset(replay, publisher_rank(1, 0, r)) for r in range(ranks)],
        "flags": sorted(flags),
    }


def main():
    vllm_wheel, sglang_wheel, ranks, pub, replay = sys.argv[1:6]
    ranks = int(ranks)
    print(
        json.dumps(
            {
                "vllm": vllm(vllm_wheel, ranks, pub, replay),
                "sglang": sglang(sglang_wheel, ranks, pub, replay),
            }
        )
    )


if __name__ == "__main__":
    main()
