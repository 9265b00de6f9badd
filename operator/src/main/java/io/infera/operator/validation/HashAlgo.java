package io.infera.operator.validation;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * vLLM's {@code --prefix-caching-hash-algo} in a pool's args: only the SHA-256 choices. vLLM also
 * offers xxHash ({@code xxhash}, {@code xxhash_cbor}), and older releases Python's {@code builtin}
 * hash and a 64-bit SHA-256 truncation; those are fast but not collision resistant, so a tenant who
 * can choose prompts can forge another tenant's prefix-cache hit (docs/operations.md, "Hardening").
 * vLLM's default is {@code sha256}, so the operator does not set the flag.
 */
final class HashAlgo {

  static final String FLAG = "--prefix-caching-hash-algo";

  static final Set<String> ACCEPTED = Set.of("sha256", "sha256_cbor");

  private HashAlgo() {}

  /** Adds one violation per pool argument that chooses a non-cryptographic algorithm. */
  static void check(String field, List<String> args, BiConsumer<String, String> add) {
    for (int i = 0; i < args.size(); i++) {
      String token = args.get(i) == null ? "" : args.get(i).strip();
      String value = null;
      String name = token;
      int eq = token.indexOf('=');
      int space = indexOfWhitespace(token);
      if (eq > 0 && (space < 0 || eq < space)) {
        name = token.substring(0, eq);
        value = token.substring(eq + 1).strip();
      } else if (space > 0) {
        name = token.substring(0, space);
        value = token.substring(space + 1).strip();
      }
      if (!name.replace('_', '-').equals(FLAG)) {
        continue;
      }
      if (value == null && i + 1 < args.size() && args.get(i + 1) != null) {
        value = args.get(i + 1).strip();
      }
      if (value == null || !ACCEPTED.contains(value.toLowerCase(Locale.ROOT))) {
        add.accept(
            field + "[" + i + "]",
            FLAG
                + " "
                + (value == null ? "without a value" : "'" + value + "'")
                + " is refused: prefix-cache hashes must be cryptographic (sha256 or sha256_cbor;"
                + " vLLM's default is sha256), or a tenant can forge another's cache hit");
      }
    }
  }

  private static int indexOfWhitespace(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isWhitespace(s.charAt(i))) {
        return i;
      }
    }
    return -1;
  }
}
