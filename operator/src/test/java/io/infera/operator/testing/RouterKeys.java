package io.infera.operator.testing;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.yaml.snakeyaml.Yaml;

/**
 * RouterConfig key paths ({@code discovery.pools[].port} for a key of each list item): the keys a
 * router accepts, read from its {@code config/router/reference.yaml} as {@code
 * build/upgrade/PreviousRouter.java} reads the previous release's, and the keys a document uses.
 */
public final class RouterKeys {

  private RouterKeys() {}

  /** The keys of the router whose reference document this is (commented-out ones included). */
  public static Set<String> accepted(String referenceYaml) {
    String uncommented = referenceYaml.replaceAll("(?m)^(\\s*)# ([A-Za-z]+: )", "$1$2");
    return used(new Yaml().load(uncommented));
  }

  /** The key paths of a RouterConfig document. */
  public static Set<String> used(Object document) {
    Set<String> keys = new TreeSet<>();
    walk("", document, keys);
    return keys;
  }

  /** The keys the previous release's router accepts (upgrade/previous/router-keys.txt). */
  public static Set<String> previous() {
    List<String> lines = Fixtures.read(Previous.dir().resolve("router-keys.txt")).lines().toList();
    return new TreeSet<>(lines);
  }

  private static void walk(String path, Object node, Set<String> keys) {
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
