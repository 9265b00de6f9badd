#!/usr/bin/env bash
# A current nats-server for the event-plane ITs (the Debian package is 2.9): builds
# github.com/nats-io/nats-server/v2 at $VERSION from the Go module proxy and prints the binary's
# path on the last line of stdout.
#
#   build/nats-server.sh            # the pinned version below
#   NATS_SERVER_VERSION=v2.14.10 build/nats-server.sh
#
# The binary goes to ~/.cache/infera/nats-server/<version>/nats-server ($INFERA_CACHE overrides
# ~/.cache/infera) and is reused; the modules go to ~/.cache/infera/go/mod, Go's build cache only
# lives for the build. Concurrent callers wait for one build.
# Exit codes: 0 ok; 3 no (recent enough) Go toolchain; 4 the Go module proxy cannot be reached;
# anything else is a real failure.
set -euo pipefail

VERSION="${NATS_SERVER_VERSION:-v2.15.3}"
CACHE="${INFERA_CACHE:-$HOME/.cache/infera}"
say() { echo "nats-server: $*" >&2; }

export GOMODCACHE="$CACHE/go/mod" GOFLAGS="${GOFLAGS:-} -modcacherw" GOTOOLCHAIN=local

out="$CACHE/nats-server/$VERSION"
mkdir -p "$out"
exec 9>"$out/lock"
if ! flock -n 9; then
  say "another build of $out is running; waiting for it"
  flock 9
fi
if [[ -x "$out/nats-server" ]]; then
  echo "$out/nats-server"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  for candidate in /usr/local/go/bin /usr/lib/go/bin; do
    if [[ -x "$candidate/go" ]]; then
      PATH="$candidate:$PATH"
      break
    fi
  done
fi
if ! command -v go >/dev/null 2>&1; then
  say "no Go toolchain on the PATH; install Go 1.26 or newer (https://go.dev/doc/install)"
  exit 3
fi

proxy="$(go env GOPROXY | cut -d, -f1 | cut -d'|' -f1)"
if [[ "$proxy" != "off" && "$proxy" != "direct" && "$proxy" != file://* ]]; then
  if ! curl -fsS --max-time 20 -o /dev/null "$proxy/github.com/nats-io/nats-server/v2/@v/$VERSION.info"; then
    say "cannot reach the Go module proxy $proxy for nats-server $VERSION (set GOPROXY for a mirror)"
    exit 4
  fi
fi

say "building nats-server $VERSION into $out (about 1-3 minutes)"
start=$(date +%s)
export GOCACHE="$out/gocache" GOBIN="$out/bin.tmp"
rm -rf "$GOBIN" "$GOCACHE"
if ! go install -trimpath -ldflags="-s -w" "github.com/nats-io/nats-server/v2@$VERSION" 2>"$out/build.log"; then
  tail -30 "$out/build.log" >&2
  rm -rf "$GOCACHE"
  if grep -qiE "dial tcp|no such host|connection refused|i/o timeout|TLS handshake" "$out/build.log"; then
    say "cannot download the Go modules from the Go module proxy $proxy"
    exit 4
  fi
  if grep -qiE "requires go >=|go.mod requires go" "$out/build.log"; then
    say "go $(go env GOVERSION) is too old for nats-server $VERSION"
    exit 3
  fi
  say "go install failed (log: $out/build.log)"
  exit 1
fi
mv "$GOBIN/nats-server" "$out/nats-server"
rm -rf "$GOBIN" "$GOCACHE"
say "built in $(( $(date +%s) - start )) s"
echo "$out/nats-server"
