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

# The keys the previous router accepts: every key of ITS config/router/reference.yaml (whose own
# test proves it names every key its loader reads), commented-out optional keys included. The
# previous loader itself then confirms the whole set (and each rendered RouterConfig) parses, and
# that it refuses a key outside the set, so the list is what that router does, not what its
# reference says.
cat >"$work/Keys.java" <<'EOF'
import io.infera.router.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.yaml.snakeyaml.Yaml;

public class Keys {
  public static void main(String[] args) throws Exception {
    // Uncomment "# key: value" lines (optional keys shown commented out), keep comments proper.
    String text = Files.readString(Path.of(args[0]))
        .replaceAll("(?m)^(\\s*)# ([A-Za-z]+: )", "$1$2");
    ConfigLoader.parse(text);
    TreeSet<String> keys = new TreeSet<>();
    walk("", new Yaml().load(text), keys);
    for (int i = 1; i < args.length; i++) {
      ConfigLoader.parse(Files.readString(Path.of(args[i])));
    }
    try {
      ConfigLoader.parse(text + "\nnotAKeyOfThisRelease: 1\n");
      throw new IllegalStateException("the previous loader accepted an unknown key");
    } catch (io.infera.router.config.ConfigException expected) {
      // strict, as expected
    }
    keys.forEach(System.out::println);
  }

  @SuppressWarnings("unchecked")
  static void walk(String path, Object node, TreeSet<String> keys) {
    if (node instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        String p = path + e.getKey();
        keys.add(p);
        walk(p + ".", e.getValue(), keys);
      }
    } else if (node instanceof List<?> l) {
      String p = path.substring(0, path.length() - 1) + "[].";
      for (Object item : l) {
        walk(p, item, keys);
      }
    }
  }
}
EOF
java -cp "$router_jar" "$work/Keys.java" "$work/config/router/reference.yaml" \
  "$out"/routerconfig/*.yaml >"$out/router-keys.txt"

cat >"$out/SOURCE" <<EOF
version=$version
commit=$commit
EOF
echo "upgrade-fixtures: wrote $out ($(ls "$out/crs" | wc -l) samples, $(wc -l <"$out/router-keys.txt") router keys)" >&2
