#!/bin/sh
# Builds the base file system of the Infera images (used by `./mvnw -Pimages package`): a jlink'd
# Java runtime in /opt/java, the shared libraries it needs copied from this machine, /etc/passwd
# with the non-root user 65532, and /tmp. No registry is needed: Jib layers the applications on top
# of `scratch` + this tree. The tree is reused until `mvn clean` of the parent (or deleting it).
set -eu
out="$1"
if [ -x "$out/opt/java/bin/java" ]; then
  exit 0
fi
java_home="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
if [ ! -x "$java_home/bin/jlink" ]; then
  echo "image-rootfs: no jlink in $java_home (install a JDK 17, e.g. apt-get install openjdk-17-jdk-headless)" >&2
  exit 1
fi
command -v ldd >/dev/null || { echo "image-rootfs: ldd is missing (apt-get install libc-bin)" >&2; exit 1; }
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
"$java_home/bin/jlink" \
  --add-modules java.se,jdk.unsupported,jdk.crypto.ec,jdk.crypto.cryptoki,jdk.zipfs,jdk.jfr,jdk.management,jdk.management.agent,jdk.httpserver,jdk.naming.dns,jdk.localedata \
  --strip-debug --no-man-pages --no-header-files --compress=2 \
  --output "$out.tmp/opt/java"
# Every shared library the runtime's binaries link, plus libgcc_s/libstdc++ for native libraries
# the applications load at run time (the tokenizer's), resolved through symlinks.
{
  for f in "$out.tmp/opt/java/bin/java" $(find "$out.tmp/opt/java/lib" -name '*.so'); do
    ldd "$f" 2>/dev/null | awk '/=> \// {print $3} /^[[:space:]]*\/.*ld-linux/ {print $1}'
  done
  for extra in libgcc_s.so.1 libstdc++.so.6; do
    ldconfig -p | awk -v n="$extra" '$1 == n && /x86-64|x86_64|aarch64/ {print $NF; exit}'
  done
} | sort -u | while read -r lib; do
  case "$lib" in "" | "$out.tmp"/*) continue ;; esac
  mkdir -p "$out.tmp$(dirname "$lib")"
  cp -L "$lib" "$out.tmp$lib"
done
for loader in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
  if [ -e "$loader" ]; then
    mkdir -p "$out.tmp$(dirname "$loader")"
    cp -L "$loader" "$out.tmp$loader"
  fi
done
mkdir -p "$out.tmp/etc" "$out.tmp/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/tmp:/sbin/nologin\n' >"$out.tmp/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$out.tmp/etc/group"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "image-rootfs: $(du -sh "$out" | cut -f1) in $out"
