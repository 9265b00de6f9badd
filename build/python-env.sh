#!/usr/bin/env bash
# Python environments for the tests that run real upstream code (engine KV-event publishers,
# transformers' chat templates). Nothing is installed system-wide:
#
#   build/python-env.sh venv NAME REQUIREMENTS   a virtualenv at .venv/NAME in the repository,
#                                                (re)built when REQUIREMENTS changes; prints its
#                                                python on the last line of stdout
#   build/python-env.sh wheel SPEC               one binary wheel (no dependencies, no sdist)
#                                                downloaded into ~/.cache/infera/wheels; prints
#                                                its path on the last line of stdout
#
# pip's download cache is ~/.cache/infera/pip ($INFERA_CACHE overrides ~/.cache/infera).
# Exit codes: 0 ok; 3 a toolchain is missing (the message says what to install);
# 4 the package index cannot be reached; anything else is a real failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${INFERA_CACHE:-$HOME/.cache/infera}"
INDEX="${PIP_INDEX_URL:-https://pypi.org/simple}"
export PIP_CACHE_DIR="$CACHE/pip" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

say() { echo "python-env: $*" >&2; }

python3_or_exit() {
  local py="${INFERA_PYTHON:-python3}"
  if ! command -v "$py" >/dev/null 2>&1; then
    say "no python3 on the PATH; install Python 3.10 or newer (Debian: apt-get install -y python3 python3-venv)"
    exit 3
  fi
  if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
    say "$("$py" --version 2>&1) is too old; install Python 3.10 or newer"
    exit 3
  fi
  if ! "$py" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    say "$py has no venv/ensurepip module; install it (Debian: apt-get install -y python3-venv)"
    exit 3
  fi
  echo "$py"
}

index_or_exit() {
  if ! "$1" - "$INDEX" <<'PY' >/dev/null 2>&1
import sys, urllib.request
urllib.request.urlopen(sys.argv[1].rstrip("/") + "/pip/", timeout=15).read(1)
PY
  then
    say "cannot reach the package index $INDEX (set PIP_INDEX_URL for a mirror)"
    exit 4
  fi
}

cmd="${1:-}"
case "$cmd" in
  venv)
    [[ $# -eq 3 ]] || { say "usage: $0 venv NAME REQUIREMENTS"; exit 2; }
    name="$2"; req="$3"
    [[ "$name" =~ ^[A-Za-z0-9._-]+$ ]] || { say "bad venv name: $name"; exit 2; }
    [[ -f "$req" ]] || { say "no requirements file: $req"; exit 2; }
    py="$(python3_or_exit)"
    dir="$ROOT/.venv/$name"
    stamp="$("$py" --version 2>&1) $(sha256sum "$req" | cut -d' ' -f1)"
    if [[ -x "$dir/bin/python" && -f "$dir/.infera-stamp" && "$(cat "$dir/.infera-stamp")" == "$stamp" ]]; then
      echo "$dir/bin/python"
      exit 0
    fi
    mkdir -p "$ROOT/.venv" "$PIP_CACHE_DIR"
    # A lock so that two test JVMs do not build the same venv at once; the winner's venv is reused.
    exec 9>"$ROOT/.venv/.$name.lock"
    flock 9
    if [[ -x "$dir/bin/python" && -f "$dir/.infera-stamp" && "$(cat "$dir/.infera-stamp")" == "$stamp" ]]; then
      echo "$dir/bin/python"
      exit 0
    fi
    index_or_exit "$py"
    say "building $dir from $req (one time; cached downloads in $PIP_CACHE_DIR)"
    rm -rf "$dir"
    "$py" -m venv "$dir"
    "$dir/bin/python" -m pip install -q --only-binary=:all: --require-virtualenv -r "$req" >&2
    echo "$stamp" >"$dir/.infera-stamp"
    echo "$dir/bin/python"
    ;;
  wheel)
    [[ $# -eq 2 ]] || { say "usage: $0 wheel SPEC (e.g. vllm==0.33.0)"; exit 2; }
    spec="$2"
    [[ "$spec" =~ ^[A-Za-z0-9._-]+==[A-Za-z0-9.+_-]+$ ]] || { say "pin the wheel exactly (NAME==VERSION): $spec"; exit 2; }
    py="$(python3_or_exit)"
    name="${spec%%==*}"; version="${spec##*==}"
    norm="$(echo "$name" | tr '.-' '__')"
    mkdir -p "$CACHE/wheels"
    found="$(ls "$CACHE/wheels/${norm}-${version}-"*.whl 2>/dev/null | head -1 || true)"
    if [[ -z "$found" ]]; then
      exec 9>"$CACHE/wheels/.$norm.lock"
      flock 9
      found="$(ls "$CACHE/wheels/${norm}-${version}-"*.whl 2>/dev/null | head -1 || true)"
    fi
    if [[ -z "$found" ]]; then
      index_or_exit "$py"
      say "downloading the $spec wheel into $CACHE/wheels (one time)"
      "$py" -m pip download -q --no-deps --only-binary=:all: --dest "$CACHE/wheels" "$spec" >&2
      found="$(ls "$CACHE/wheels/${norm}-${version}-"*.whl | head -1)"
    fi
    echo "$found"
    ;;
  *)
    say "usage: $0 venv NAME REQUIREMENTS | wheel NAME==VERSION"
    exit 2
    ;;
esac
