#!/usr/bin/env bash
# A real Kubernetes control plane for the operator's ITs: builds kube-apiserver,
# kube-controller-manager and etcd from the Go module in build/kube-testenv/ (k8s.io/kubernetes and
# go.etcd.io/etcd/server/v3 from the Go module proxy) and prints the directory that holds them on
# the last line of stdout.
#
#   build/kube-testenv.sh
#
# The binaries go to ~/.cache/infera/kube-testenv/<key>/bin ($INFERA_CACHE overrides
# ~/.cache/infera), where <key> is a digest of the module's files: a changed pin builds anew, an
# unchanged one is reused (about 210 MB). The first build downloads about 570 MB of modules into
# ~/.cache/infera/go/mod (kept for rebuilds) and takes about 5 minutes on an idle 2-core machine,
# much longer on a busy one. Concurrent callers wait for one build.
# Exit codes: 0 ok; 3 no Go toolchain (the message says what to install); 4 the Go module proxy
# cannot be reached; anything else is a real failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODULE="$ROOT/build/kube-testenv"
CACHE="${INFERA_CACHE:-$HOME/.cache/infera}"

say() { echo "kube-testenv: $*" >&2; }

# The downloaded modules live with the project's other caches (a rebuild after a pin change
# reuses them); Go's build cache (about 2.7 GB for these commands) only lives for the build.
export GOMODCACHE="$CACHE/go/mod" GOFLAGS="${GOFLAGS:-} -modcacherw"

if ! command -v go >/dev/null 2>&1; then
  for candidate in /usr/local/go/bin /usr/lib/go/bin; do
    if [[ -x "$candidate/go" ]]; then
      PATH="$candidate:$PATH"
      break
    fi
  done
fi
if ! command -v go >/dev/null 2>&1; then
  say "no Go toolchain on the PATH; install Go 1.25 or newer (https://go.dev/doc/install, or Debian: apt-get install -y golang-go from bookworm-backports)"
  exit 3
fi
# go.mod says 'go 1.25.0'; an older go would try to download a toolchain or refuse.
gover="$(go env GOVERSION | sed 's/^go//')"
if ! printf '1.25\n%s\n' "$gover" | sort -V -C; then
  say "go $gover is too old for build/kube-testenv/go.mod (needs 1.25 or newer)"
  exit 3
fi

key="$(cat "$MODULE/go.mod" "$MODULE/go.sum" "$MODULE"/etcd/*.go "$0" | sha256sum | cut -c1-16)"
out="$CACHE/kube-testenv/$key"
bin="$out/bin"
done_marker="$out/built"
mkdir -p "$out"
# Builds of other pins that have not been used for two weeks are removed.
find "$CACHE/kube-testenv" -mindepth 1 -maxdepth 1 -type d ! -name "$key" -mtime +14 -exec rm -rf {} + 2>/dev/null || true

exec 9>"$out/lock"
if ! flock -n 9; then
  say "another build of $out is running; waiting for it"
  flock 9
fi

if [[ -f "$done_marker" ]]; then
  touch "$out"
  echo "$bin"
  exit 0
fi

proxy="$(go env GOPROXY | cut -d, -f1 | cut -d'|' -f1)"
if [[ "$proxy" != "off" && "$proxy" != "direct" && "$proxy" != file://* ]]; then
  if ! curl -fsS --max-time 20 -o /dev/null "$proxy/k8s.io/kubernetes/@v/list"; then
    say "cannot reach the Go module proxy $proxy (set GOPROXY for a mirror)"
    exit 4
  fi
fi

cd "$MODULE"
say "downloading the Go modules (k8s.io/kubernetes, etcd: about 300 MB the first time) and building kube-apiserver, kube-controller-manager and etcd into $bin (about 5 minutes on an idle 2-core machine)"
start=$(date +%s)
rm -rf "$bin.tmp" "$out/gocache"
mkdir -p "$bin.tmp"
export GOCACHE="$out/gocache"
# The version the server reports (/version, kubectl version) is stamped the way Kubernetes' own
# build does; without it the server says v0.0.0-master.
kver="$(awk '$1 == "k8s.io/kubernetes" {print $2}' go.mod | head -1)"
kmajor="$(echo "${kver#v}" | cut -d. -f1)"
kminor="$(echo "${kver#v}" | cut -d. -f2)"
vpkg=k8s.io/component-base/version
go build -trimpath \
  -ldflags="-s -w -X $vpkg.gitVersion=$kver -X $vpkg.gitMajor=$kmajor -X $vpkg.gitMinor=$kminor -X $vpkg.gitTreeState=clean -X $vpkg.buildDate=1970-01-01T00:00:00Z" \
  -o "$bin.tmp/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-controller-manager \
  ./etcd 2>"$out/build.log" || {
  tail -30 "$out/build.log" >&2
  if grep -qiE "dial tcp|no such host|connection refused|i/o timeout|TLS handshake" "$out/build.log"; then
    say "cannot download the Go modules from the Go module proxy $proxy"
    exit 4
  fi
  say "go build failed (log: $out/build.log)"
  exit 1
}
rm -rf "$bin" "$out/gocache"
mv "$bin.tmp" "$bin"
touch "$done_marker"
say "built in $(( $(date +%s) - start )) s: $(ls "$bin" | tr '\n' ' ')"
echo "$bin"
