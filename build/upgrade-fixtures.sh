#!/usr/bin/env bash
# Regenerates the previous-release upgrade fixtures (docs/contracts.md, "Version skew") from a git
# revision of this repository: the samples (InferaDeployments) as of that revision, what ITS
# operator renders for each (all children, and the RouterConfig alone), and the RouterConfig keys
# ITS router accepts. Run it at the start of each release with the last released revision:
#
#   build/upgrade-fixtures.sh <revision> [output directory]
#
# The output directory defaults to operator/src/test/resources/upgrade/previous. The revision is
# exported with `git archive` into a temporary directory outside the work tree and built there
# offline (`./mvnw -B -o -q -DskipTests package`), so nothing of the current tree is used.
set -euo pipefail

rev="${1:?usage: build/upgrade-fixtures.sh <git revision> [output directory]}"
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="${2:-$repo/operator/src/test/resources/upgrade/previous}"
commit="$(git -C "$repo" rev-parse --verify "$rev^{commit}")"
for tool in java jq; do
  command -v "$tool" >/dev/null || { echo "upgrade-fixtures: $tool is needed" >&2; exit 1; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/infera-previous.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "upgrade-fixtures: exporting $commit into $work" >&2
git -C "$repo" archive --format=tar "$commit" | tar -x -C "$work"
version="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' "$work/pom.xml" | head -1)"
echo "upgrade-fixtures: building $version (operator, router) offline" >&2
(cd "$work" && ./mvnw -B -o -q -DskipTests -Dspotless.check.skip=true -pl operator,router -am package)
operator_jar="$work/operator/target/infera-operator.jar"
router_jar="$work/router/target/infera-router.jar"

rm -rf "$out/crs" "$out/rendered" "$out/routerconfig" "$out/crd"
mkdir -p "$out/crs" "$out/rendered" "$out/routerconfig" "$out/crd"
cp "$work"/crds/*.yml "$out/crd/"
for sample in "$work"/config/samples/*.yaml; do
  name="$(basename "$sample" .yaml)"
  cp "$sample" "$out/crs/$name.yaml"
  java -jar "$operator_jar" render -f "$sample" -o yaml >"$out/rendered/$name.yaml"
  java -jar "$operator_jar" render -f "$sample" -o json \
    | jq -jr '.items[] | select(.kind == "ConfigMap"
        and .metadata.labels["app.kubernetes.io/component"] == "router") | .data["router.yaml"]' \
      >"$out/routerconfig/$name.yaml"
  [[ -s "$out/routerconfig/$name.yaml" ]] || { echo "upgrade-fixtures: no RouterConfig for $name" >&2; exit 1; }
done

# The keys the previous router accepts and what it makes of each RouterConfig, asked of that
# router's own ConfigLoader (build/upgrade/PreviousRouter.java on its jar's classpath): every key
# of ITS config/router/reference.yaml (whose own test proves it names every key its loader reads),
# commented-out optional keys included, confirmed by a strict parse of the whole set and by the
# refusal of a key outside it; settings/<sample>.yaml is its RouterConfig record of each file.
rm -rf "$out/settings"
mkdir -p "$out/settings"
java -cp "$router_jar" "$repo/build/upgrade/PreviousRouter.java" \
  "$work/config/router/reference.yaml" "$out/router-keys.txt" "$out/settings" \
  "$out"/routerconfig/*.yaml

cat >"$out/SOURCE" <<EOF
version=$version
commit=$commit
EOF
echo "upgrade-fixtures: wrote $out ($(ls "$out/crs" | wc -l) samples, $(wc -l <"$out/router-keys.txt") router keys)" >&2
