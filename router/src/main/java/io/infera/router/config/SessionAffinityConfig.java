package io.infera.router.config;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Session affinity ({@code policy.sessionAffinity.*}, docs/routing.md "Session affinity"): which
 * picks a session keeps, where its key comes from, and how many bindings live how long.
 *
 * @param mode {@code OFF}, {@code PREFILL} (the prefill-side pick: the mixed or prefill worker) or
 *     {@code BOTH} (also the decode worker and its data-parallel rank)
 * @param header the request header holding a session id (lower case), or null for none; it wins
 *     over the body's {@code prompt_cache_key}
 * @param maxSessions most bindings one replica keeps (least recently used go first)
 * @param ttlMs a binding unused for this long is gone
 * @param maxKeyBytes a session key longer than this (UTF-8 bytes) is not used (counted)
 */
public record SessionAffinityConfig(
    Mode mode, String header, int maxSessions, long ttlMs, int maxKeyBytes) {

  /** {@code --session-affinity off|prefill|both}. */
  public enum Mode {
    OFF,
    PREFILL,
    BOTH;

    /** The config and flag spelling. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code off}, {@code prefill} or {@code both} (any case).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static Mode parse(String s) {
      for (Mode m : values()) {
        if (m.wireName().equalsIgnoreCase(s.strip())) {
          return m;
        }
      }
      throw new IllegalArgumentException("expected off, prefill or both, got '" + s + "'");
    }
  }

  public static final String DEFAULT_HEADER = "x-session-id";
  public static final int DEFAULT_MAX_SESSIONS = 100_000;
  public static final int MAX_MAX_SESSIONS = 10_000_000;
  public static final long DEFAULT_TTL_MS = 30 * 60_000L;
  public static final int DEFAULT_MAX_KEY_BYTES = 256;
  public static final int MAX_MAX_KEY_BYTES = 4096;

  /** An HTTP header name (RFC 9110 token characters). */
  static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}");

  public static final SessionAffinityConfig DEFAULTS =
      new SessionAffinityConfig(
          Mode.OFF, DEFAULT_HEADER, DEFAULT_MAX_SESSIONS, DEFAULT_TTL_MS, DEFAULT_MAX_KEY_BYTES);

  public SessionAffinityConfig {
    if (mode == null) {
      throw new IllegalArgumentException("mode must be set");
    }
    if (header != null) {
      if (!HEADER_NAME.matcher(header).matches()) {
        throw new IllegalArgumentException(
            "header: expected an HTTP header name (letters, digits, '-', at most 128), got '"
                + header
                + "'");
      }
      header = header.toLowerCase(Locale.ROOT);
    }
    if (maxSessions < 1 || maxSessions > MAX_MAX_SESSIONS) {
      throw new IllegalArgumentException(
          "maxSessions: " + maxSessions + " is outside [1, " + MAX_MAX_SESSIONS + "]");
    }
    if (ttlMs < 1000 || ttlMs > 7 * 86_400_000L) {
      throw new IllegalArgumentException("ttlMs: " + ttlMs + " is outside [1000, 604800000]");
    }
    if (maxKeyBytes < 1 || maxKeyBytes > MAX_MAX_KEY_BYTES) {
      throw new IllegalArgumentException(
          "maxKeyBytes: " + maxKeyBytes + " is outside [1, " + MAX_MAX_KEY_BYTES + "]");
    }
  }

  /** Whether any pick is bound. */
  public boolean enabled() {
    return mode != Mode.OFF;
  }

  /** The same settings in another mode. */
  public SessionAffinityConfig withMode(Mode m) {
    return new SessionAffinityConfig(m, header, maxSessions, ttlMs, maxKeyBytes);
  }
}
