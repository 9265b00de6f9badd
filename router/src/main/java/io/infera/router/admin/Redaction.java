package io.infera.router.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Keeps credentials out of the admin documents: the user and password of any URL ({@code
 * nats://user:pass@host} becomes {@code nats://***@host}), wherever it appears in a value (an error
 * message quoting a URL too), and the value of any key that names a secret (token, password,
 * secret, credentials, nkey, seed, jwt, authorization). File paths stay; file contents are never
 * read into a document.
 */
public final class Redaction {

  /** What a redacted value reads as. */
  public static final String REDACTED = "<redacted>";

  /** {@code scheme://userinfo@}: the user info is everything up to the last '@' before the host. */
  private static final Pattern USERINFO =
      Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://)[^/\\s?#\"]*@");

  /** Words of a key that name a secret. */
  private static final java.util.Set<String> SECRET_WORDS =
      java.util.Set.of(
          "token",
          "password",
          "passwd",
          "secret",
          "credential",
          "credentials",
          "creds",
          "nkey",
          "seed",
          "jwt",
          "authorization",
          "apikey");

  /** Words that make a key name a secret's place or state, not the secret ({@code token_file}). */
  private static final java.util.Set<String> PLACE_WORDS =
      java.util.Set.of("file", "path", "dir", "required", "set", "configured", "source", "ref");

  /** Splits {@code auth_token}, {@code authToken}, {@code api-key} into lower-case words. */
  private static final Pattern WORD_BREAK = Pattern.compile("[_\\-.\\s]+|(?<=[a-z0-9])(?=[A-Z])");

  private Redaction() {}

  /** A copy of {@code doc} with credentials replaced; maps keep their order. */
  public static Map<String, Object> redact(Map<String, Object> doc) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : doc.entrySet()) {
      out.put(e.getKey(), value(e.getKey(), e.getValue()));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Object value(String key, Object v) {
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> copy = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        String k = String.valueOf(e.getKey());
        copy.put(k, value(k, e.getValue()));
      }
      return copy;
    }
    if (v instanceof List<?> l) {
      List<Object> copy = new ArrayList<>(l.size());
      for (Object item : l) {
        copy.add(value(key, item));
      }
      return copy;
    }
    if (v instanceof String s) {
      if (key != null && isSecretKey(key)) {
        return s.isEmpty() ? s : REDACTED;
      }
      return url(s);
    }
    return v;
  }

  static boolean isSecretKey(String key) {
    boolean secret = false;
    String previous = "";
    for (String w : WORD_BREAK.split(key)) {
      String word = w.toLowerCase(java.util.Locale.ROOT);
      if (PLACE_WORDS.contains(word)) {
        return false;
      }
      // "api_key" and "apiKey" are one word here.
      secret |= SECRET_WORDS.contains(word) || (previous.equals("api") && word.equals("key"));
      previous = word;
    }
    return secret;
  }

  /** {@code s} with the user info of every URL in it replaced by {@code ***}. */
  public static String url(String s) {
    if (s.indexOf('@') < 0 || s.indexOf("://") < 0) {
      return s;
    }
    return USERINFO.matcher(s).replaceAll("$1***@");
  }
}
