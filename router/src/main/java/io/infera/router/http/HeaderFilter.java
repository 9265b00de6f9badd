package io.infera.router.http;

import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Which headers cross the proxy, each way (docs/architecture.md, "Headers across the proxy"): never
 * the hop-by-hop ones nor those a {@code Connection} header lists (they belong to one connection);
 * from a client never the headers the router itself sets for the engines ({@code
 * X-data-parallel-rank}, which vLLM and SGLang obey to pin a request to a rank) nor the router's
 * own {@code x-infera-*}; from an engine never {@code x-infera-*}, which only the router writes.
 * Pure and allocation-light: it runs for every proxied request.
 */
final class HeaderFilter {

  /** Headers that belong to one connection (RFC 9110, 7.6.1), plus the framing Vert.x sets. */
  static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-authenticate",
          "proxy-authorization",
          "proxy-connection",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "http2-settings",
          "host",
          "content-length");

  /** Request headers only the router sets for an engine; a client's copy is dropped. */
  static final Set<String> INTERNAL_REQUEST = Set.of("x-data-parallel-rank");

  /** The router's own header namespace, never taken from a client or an engine. */
  static final String INTERNAL_PREFIX = "x-infera-";

  /** Which side the headers come from. */
  enum From {
    CLIENT,
    ENGINE
  }

  private HeaderFilter() {}

  /**
   * Copies to {@code out} the headers of {@code in} that may cross the proxy.
   *
   * @param in header name/value pairs as received (names in any case, repeated names allowed)
   * @return how many internal headers were dropped (hop-by-hop ones are not counted)
   */
  static int copy(
      Iterable<Map.Entry<String, String>> in, From from, BiConsumer<String, String> out) {
    Set<String> listed = connectionListed(in);
    int internal = 0;
    for (Map.Entry<String, String> h : in) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (HOP_BY_HOP.contains(name) || (listed != null && listed.contains(name))) {
        continue;
      }
      if (name.startsWith(INTERNAL_PREFIX)
          || (from == From.CLIENT && INTERNAL_REQUEST.contains(name))) {
        internal++;
        continue;
      }
      out.accept(h.getKey(), h.getValue());
    }
    return internal;
  }

  /**
   * The header names the {@code Connection} headers of {@code in} list (lower case), or null when
   * they list none beyond {@code close} and {@code keep-alive} (the common case, no allocation).
   */
  static Set<String> connectionListed(Iterable<Map.Entry<String, String>> in) {
    Set<String> listed = null;
    for (Map.Entry<String, String> h : in) {
      if (!h.getKey().equalsIgnoreCase("connection")) {
        continue;
      }
      String v = h.getValue();
      int start = 0;
      while (start <= v.length()) {
        int comma = v.indexOf(',', start);
        int end = comma < 0 ? v.length() : comma;
        String token = v.substring(start, end).trim().toLowerCase(Locale.ROOT);
        if (!token.isEmpty() && !token.equals("close") && !token.equals("keep-alive")) {
          if (listed == null) {
            listed = new HashSet<>();
          }
          listed.add(token);
        }
        start = end + 1;
      }
    }
    return listed;
  }
}
