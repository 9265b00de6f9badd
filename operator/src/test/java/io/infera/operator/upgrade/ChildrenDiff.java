package io.infera.operator.upgrade;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The differences between two renderings of one resource, one line each: {@code <sample>
 * <Kind>/<name> <path>: changed|added|removed}. A string that holds a YAML mapping (the router
 * ConfigMap's {@code router.yaml}) is compared key by key, its keys after a {@code /}.
 */
final class ChildrenDiff {

  private ChildrenDiff() {}

  /** A line of deliberate-changes.txt: a pattern ({@code *} matches anything) and its reason. */
  record Deliberate(String line, Pattern pattern) {
    boolean matches(String change) {
      return pattern.matcher(change).matches();
    }
  }

  static List<Deliberate> deliberate(String text) {
    List<Deliberate> out = new ArrayList<>();
    for (String line : text.lines().toList()) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      int reason = l.indexOf(" # ");
      if (reason < 0 || l.substring(reason + 3).isBlank()) {
        throw new IllegalArgumentException(
            "deliberate-changes.txt: '" + l + "' has no reason (append ' # why')");
      }
      String pattern = l.substring(0, reason).strip();
      String[] parts = pattern.split("\\*", -1);
      StringBuilder re = new StringBuilder();
      for (int i = 0; i < parts.length; i++) {
        re.append(i == 0 ? "" : ".*").append(Pattern.quote(parts[i]));
      }
      out.add(new Deliberate(l, Pattern.compile(re.toString())));
    }
    return out;
  }

  static List<String> diff(String sample, String before, String after) {
    Map<String, Object> b = objects(before);
    Map<String, Object> a = objects(after);
    List<String> out = new ArrayList<>();
    Set<String> ids = new LinkedHashSet<>(b.keySet());
    ids.addAll(a.keySet());
    for (String id : ids) {
      String prefix = sample + " " + id;
      if (!a.containsKey(id)) {
        out.add(prefix + " : removed");
      } else if (!b.containsKey(id)) {
        out.add(prefix + " : added");
      } else {
        compare(prefix + " ", "", b.get(id), a.get(id), out);
      }
    }
    return out;
  }

  /** Kind/name → object, for a multi-document YAML rendering. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> objects(String yaml) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(yaml)) {
      if (doc instanceof Map<?, ?> m) {
        Map<String, Object> meta = (Map<String, Object>) m.get("metadata");
        out.put(m.get("kind") + "/" + meta.get("name"), m);
      }
    }
    return out;
  }

  private static void compare(
      String prefix, String path, Object before, Object after, List<String> out) {
    if (before instanceof Map<?, ?> b && after instanceof Map<?, ?> a) {
      Set<Object> keys = new LinkedHashSet<>(b.keySet());
      keys.addAll(a.keySet());
      for (Object k : keys) {
        String p = join(path, String.valueOf(k));
        if (!a.containsKey(k)) {
          out.add(prefix + p + ": removed");
        } else if (!b.containsKey(k)) {
          out.add(prefix + p + ": added");
        } else {
          compare(prefix, p, b.get(k), a.get(k), out);
        }
      }
    } else if (before instanceof List<?> b && after instanceof List<?> a) {
      for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
        String p = path + "[" + i + "]";
        if (i >= a.size()) {
          out.add(prefix + p + ": removed");
        } else if (i >= b.size()) {
          out.add(prefix + p + ": added");
        } else {
          compare(prefix, p, b.get(i), a.get(i), out);
        }
      }
    } else if (before instanceof String b
        && after instanceof String a
        && !b.equals(a)
        && yamlMap(b) != null
        && yamlMap(a) != null) {
      compare(prefix, path + "/", yamlMap(b), yamlMap(a), out);
    } else if (!Objects.equals(before, after)) {
      out.add(prefix + path + ": changed");
    }
  }

  private static String join(String path, String key) {
    return path.isEmpty() || path.endsWith("/") ? path + key : path + "." + key;
  }

  private static Map<?, ?> yamlMap(String text) {
    if (!text.contains("\n")) {
      return null;
    }
    try {
      Object v = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
      return v instanceof Map<?, ?> m ? m : null;
    } catch (RuntimeException e) {
      return null;
    }
  }
}
