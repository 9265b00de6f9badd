package io.infera.router.routing;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import net.openhft.hashing.LongHashFunction;

/**
 * A request's session, as the router keeps it: the XXH3-64 of the key's UTF-8 bytes (the key text
 * itself is neither stored, logged nor shared) and where it came from. Extracted by {@link #of}
 * from a configured header or the body's {@code prompt_cache_key} — never from the prompt.
 *
 * @param hash the session key's hash (the same for the header and the body spelling of one key)
 */
public record SessionKey(long hash, Source source) {

  /** Where a key was found. */
  public enum Source {
    HEADER,
    BODY
  }

  /** Why a request has no session key, or that it has one. */
  public enum Extraction {
    /** A key was found. */
    FOUND,
    /** Neither source is present (or affinity is off). */
    ABSENT,
    /** The source holds no string (e.g. a number for {@code prompt_cache_key}). */
    NOT_STRING,
    /** The key is empty or blank. */
    EMPTY,
    /** The key is longer than {@code policy.sessionAffinity.maxKeyBytes}. */
    TOO_LONG;

    /** The metric label. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** An extraction: the key (null unless {@code FOUND}) and the outcome. */
  public record Extracted(SessionKey key, Extraction outcome) {
    static final Extracted ABSENT = new Extracted(null, Extraction.ABSENT);
  }

  /** The body field OpenAI clients set to group requests that share a prompt prefix. */
  public static final String BODY_FIELD = "prompt_cache_key";

  // A seed of our own: session hashes never collide with block or image hashes by construction.
  private static final LongHashFunction HASH = LongHashFunction.xx3(0x5e55_10a0_f1a1_7e11L);

  /**
   * The session key of a request: the header's value when the header is present (a gateway in front
   * of the router sets it), else the body's {@code prompt_cache_key}. A present but unusable source
   * (blank, not a string, longer than {@code maxKeyBytes}) gives no key and says why; it never
   * falls through to the other source, and it never fails the request.
   *
   * @param header the configured header's value, or null when absent (or no header is configured)
   * @param body the parsed request body (null: none)
   * @param maxKeyBytes the longest key accepted, in UTF-8 bytes
   */
  public static Extracted of(String header, Map<String, Object> body, int maxKeyBytes) {
    if (header != null) {
      return of(header, Source.HEADER, maxKeyBytes);
    }
    if (body == null || !body.containsKey(BODY_FIELD)) {
      return Extracted.ABSENT;
    }
    Object v = body.get(BODY_FIELD);
    if (v == null) {
      return Extracted.ABSENT; // an explicit null is how clients say "none"
    }
    if (!(v instanceof String s)) {
      return new Extracted(null, Extraction.NOT_STRING);
    }
    return of(s, Source.BODY, maxKeyBytes);
  }

  private static Extracted of(String s, Source source, int maxKeyBytes) {
    // A UTF-8 character is at most 3 bytes per UTF-16 unit: most keys are judged without encoding.
    if (s.length() > maxKeyBytes) {
      return new Extracted(null, Extraction.TOO_LONG);
    }
    if (s.isBlank()) {
      return new Extracted(null, Extraction.EMPTY);
    }
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > maxKeyBytes) {
      return new Extracted(null, Extraction.TOO_LONG);
    }
    return new Extracted(new SessionKey(HASH.hashBytes(bytes), source), Extraction.FOUND);
  }
}
