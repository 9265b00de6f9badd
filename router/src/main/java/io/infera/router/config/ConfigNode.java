package io.infera.router.config;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One mapping of a RouterConfig document with its key path ({@code discovery.pools[0].}), and typed
 * getters that name the full key in every error.
 */
final class ConfigNode {
  final String path;
  final Map<String, Object> map;
  private final Unknown unknown;

  ConfigNode(String path, Map<String, Object> map, Unknown unknown) {
    this.path = path;
    this.map = map;
    this.unknown = unknown;
  }

  /**
   * Declares the keys this mapping may hold; any other is refused (strict) or recorded and left
   * alone (lenient), its contents never read.
   */
  void only(String... keys) throws ConfigException {
    Set<String> allowed = Set.of(keys);
    for (String k : map.keySet()) {
      if (!allowed.contains(k)) {
        unknown.found(path, k, keys);
      }
    }
  }

  /** The unknown keys of one document, shared by all its nodes. */
  static final class Unknown {
    private final Strictness strictness;
    private final Set<String> mustUnderstand;
    private final Set<String> aboveMustUnderstand = new HashSet<>();
    private final List<String> listed = new ArrayList<>();
    private int total;

    /**
     * @param mustUnderstand the document's {@code mustUnderstand} entries, {@link #generic} form
     */
    Unknown(Strictness strictness, Set<String> mustUnderstand) {
      this.strictness = strictness;
      this.mustUnderstand = Set.copyOf(mustUnderstand);
      for (String m : mustUnderstand) {
        aboveMustUnderstand.addAll(ancestors(m));
      }
    }

    void found(String path, String key, String... expected) throws ConfigException {
      String full = path + key;
      if (strictness == Strictness.STRICT) {
        throw new ConfigException(
            IgnoredKeys.printable(full)
                + ": unknown key (expected one of "
                + String.join(", ", expected)
                + ")");
      }
      String generic = generic(full);
      // The key itself, a section holding a listed key, or a key inside a listed section.
      boolean listedHere =
          mustUnderstand.contains(generic)
              || aboveMustUnderstand.contains(generic)
              || ancestors(generic).stream().anyMatch(mustUnderstand::contains);
      if (listedHere) {
        throw new ConfigException(
            IgnoredKeys.printable(full)
                + ": unknown key that mustUnderstand lists (a newer writer needs a feature"
                + " this router does not have; upgrade the router)");
      }
      total++;
      if (listed.size() < IgnoredKeys.MAX_LISTED) {
        listed.add(IgnoredKeys.printable(full));
      }
    }

    IgnoredKeys result() {
      return new IgnoredKeys(listed, total);
    }
  }

  /**
   * {@code a.b[].c} → {@code a}, {@code a.b[]}; only those up to {@link #MAX_KEY_PATH} characters
   * (no {@code mustUnderstand} entry is longer, and a hostile key of a million dots must not cost a
   * million substrings).
   */
  static List<String> ancestors(String path) {
    List<String> out = new ArrayList<>();
    for (int i = path.indexOf('.'); i > 0 && i <= MAX_KEY_PATH; i = path.indexOf('.', i + 1)) {
      out.add(path.substring(0, i));
    }
    return out;
  }

  /** Longest {@code mustUnderstand} entry. */
  static final int MAX_KEY_PATH = 256;

  /** {@code discovery.pools[3].port} and {@code discovery.pools[].port} → the latter. */
  static String generic(String path) {
    return path.replaceAll("\\[\\d*]", "[]");
  }

  @SuppressWarnings("unchecked")
  ConfigNode child(String key) throws ConfigException {
    Object v = map.get(key);
    if (v == null) {
      return new ConfigNode(path + key + ".", new LinkedHashMap<>(), unknown);
    }
    if (!(v instanceof Map)) {
      throw new ConfigException(path + key + ": expected a mapping, got " + describe(v));
    }
    return new ConfigNode(path + key + ".", (Map<String, Object>) v, unknown);
  }

  @SuppressWarnings("unchecked")
  List<ConfigNode> list(String key) throws ConfigException {
    Object v = map.get(key);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> l)) {
      throw new ConfigException(path + key + ": expected a list, got " + describe(v));
    }
    List<ConfigNode> out = new ArrayList<>();
    for (int i = 0; i < l.size(); i++) {
      if (!(l.get(i) instanceof Map)) {
        throw new ConfigException(path + key + "[" + i + "]: expected a mapping");
      }
      out.add(new ConfigNode(path + key + "[" + i + "].", (Map<String, Object>) l.get(i), unknown));
    }
    return out;
  }

  String required(String key) throws ConfigException {
    String v = string(key, null);
    if (v == null || v.isBlank()) {
      throw new ConfigException(path + key + ": required");
    }
    return v;
  }

  String string(String key, String dflt) throws ConfigException {
    Object v = map.get(key);
    if (v == null) {
      return dflt;
    }
    if (v instanceof String || v instanceof Number || v instanceof Boolean) {
      return String.valueOf(v);
    }
    throw new ConfigException(path + key + ": expected a string, got " + describe(v));
  }

  List<String> stringList(String key) throws ConfigException {
    Object v = map.get(key);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof List<?> l)) {
      throw new ConfigException(path + key + ": expected a list of strings");
    }
    List<String> out = new ArrayList<>();
    for (Object o : l) {
      if (!(o instanceof String s)) {
        throw new ConfigException(path + key + ": expected a list of strings");
      }
      out.add(s);
    }
    return out;
  }

  long integer(String key, long dflt, long min, long max) throws ConfigException {
    Object v = map.get(key);
    if (v == null) {
      return dflt;
    }
    long x;
    if (v instanceof Number num && !(v instanceof Double) && !(v instanceof Float)) {
      x = num.longValue();
    } else if (v instanceof String s) {
      try {
        x = Long.parseLong(s.strip());
      } catch (NumberFormatException e) {
        throw new ConfigException(path + key + ": expected an integer, got '" + s + "'");
      }
    } else {
      throw new ConfigException(path + key + ": expected an integer, got " + describe(v));
    }
    if (x < min || x > max) {
      throw new ConfigException(path + key + ": " + x + " is outside [" + min + ", " + max + "]");
    }
    return x;
  }

  double number(String key, double dflt) throws ConfigException {
    Double d = optNumber(key);
    return d == null ? dflt : d;
  }

  Double optNumber(String key) throws ConfigException {
    Object v = map.get(key);
    if (v == null) {
      return null;
    }
    double d;
    if (v instanceof Number num) {
      d = num.doubleValue();
    } else if (v instanceof String s) {
      try {
        d = Double.parseDouble(s.strip());
      } catch (NumberFormatException e) {
        throw new ConfigException(path + key + ": expected a number, got '" + s + "'");
      }
    } else {
      throw new ConfigException(path + key + ": expected a number, got " + describe(v));
    }
    if (!Double.isFinite(d) || d < 0) {
      throw new ConfigException(path + key + ": must be a finite number >= 0, got " + d);
    }
    return d;
  }

  boolean bool(String key, boolean dflt) throws ConfigException {
    Object v = map.get(key);
    if (v == null) {
      return dflt;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof String s && (s.equals("true") || s.equals("false"))) {
      return Boolean.parseBoolean(s);
    }
    throw new ConfigException(path + key + ": expected true or false, got " + describe(v));
  }

  <E extends Enum<E>> E enumValue(String key, Class<E> type, E dflt) throws ConfigException {
    String v = string(key, null);
    if (v == null) {
      return dflt;
    }
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(v.replace('-', '_'))) {
        return e;
      }
    }
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      names.add(e.name().toLowerCase(Locale.ROOT));
    }
    throw new ConfigException(
        path
            + key
            + ": unknown value '"
            + v
            + "' (expected one of "
            + String.join(", ", names)
            + ")");
  }

  Role role(String key, Role dflt) throws ConfigException {
    String v = string(key, null);
    if (v == null) {
      return dflt;
    }
    try {
      return Role.parse(v);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(path + key + ": " + e.getMessage());
    }
  }

  private static String describe(Object v) {
    if (v instanceof Map) {
      return "a mapping";
    }
    if (v instanceof List) {
      return "a list";
    }
    return "'" + v + "'";
  }
}
