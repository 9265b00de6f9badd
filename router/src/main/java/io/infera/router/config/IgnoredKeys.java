package io.infera.router.config;

import java.util.List;

/**
 * The keys of a RouterConfig document this router does not know and ignored (docs/contracts.md,
 * "Version skew"): at most {@link #MAX_LISTED} key paths, printable and shortened, in document
 * order, and how many there were in all.
 *
 * @param paths key paths such as {@code discovery.pools[1].weight}; an unknown section is one path,
 *     its contents are not looked at
 * @param total every ignored key, listed or not
 */
public record IgnoredKeys(List<String> paths, int total) {

  /** How many ignored keys are listed (a hostile document may hold a million). */
  public static final int MAX_LISTED = 64;

  /** Longest key path shown; longer ones end in {@code ...}. */
  public static final int MAX_PATH_CHARS = 200;

  public static final IgnoredKeys NONE = new IgnoredKeys(List.of(), 0);

  public IgnoredKeys {
    paths = List.copyOf(paths);
    if (paths.size() > MAX_LISTED || total < paths.size()) {
      throw new IllegalArgumentException("paths " + paths.size() + ", total " + total);
    }
  }

  public boolean isEmpty() {
    return total == 0;
  }

  /** A key path fit for a log line: control and non-ASCII characters escaped, length capped. */
  static String printable(String path) {
    StringBuilder sb = new StringBuilder();
    int i = 0;
    for (; i < path.length() && sb.length() < MAX_PATH_CHARS; i++) {
      char c = path.charAt(i);
      if (c >= 0x20 && c < 0x7f) {
        sb.append(c);
      } else {
        sb.append(String.format("\\u%04x", (int) c));
      }
    }
    if (i < path.length() || sb.length() > MAX_PATH_CHARS) {
      return sb.substring(0, MAX_PATH_CHARS - 3) + "...";
    }
    return sb.toString();
  }
}
