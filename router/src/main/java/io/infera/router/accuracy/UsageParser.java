package io.infera.router.accuracy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.IOException;

/**
 * Reads {@code usage.prompt_tokens_details.cached_tokens} out of an engine's answer: a whole JSON
 * body, or the tail of an SSE stream (the OpenAI {@code include_usage} chunk comes last, before
 * {@code data: [DONE]}). The answer is outside input: every other field is skipped unread, nesting
 * is capped, any structural error is {@link CachedTokens.Why#MALFORMED}, and a missing or null
 * field is unknown, never 0. Pure and thread-safe.
 */
public final class UsageParser {

  /** Nesting deeper than this is malformed (an answer's usage sits at depth 3). */
  static final int MAX_DEPTH = 64;

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(MAX_DEPTH)
                  .maxNumberLength(100)
                  .build())
          .build();

  private UsageParser() {}

  /** One whole JSON answer, {@code b[off, off + len)}. */
  public static CachedTokens json(byte[] b, int off, int len) {
    try (JsonParser p = FACTORY.createParser(b, off, len)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return CachedTokens.MALFORMED;
      }
      CachedTokens found = CachedTokens.NO_USAGE;
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if ("usage".equals(name)) {
          found = usage(p, v); // the last one wins, as in the engines' own JSON readers
        } else {
          p.skipChildren();
        }
      }
      if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
        return CachedTokens.MALFORMED;
      }
      return found;
    } catch (IOException | RuntimeException e) {
      return CachedTokens.MALFORMED;
    }
  }

  private static CachedTokens usage(JsonParser p, JsonToken v) throws IOException {
    if (v == JsonToken.VALUE_NULL) {
      return CachedTokens.NO_USAGE;
    }
    if (v != JsonToken.START_OBJECT) {
      p.skipChildren();
      return CachedTokens.MALFORMED;
    }
    CachedTokens found = CachedTokens.NO_DETAILS;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken d = p.nextToken();
      if ("prompt_tokens_details".equals(name)) {
        found = details(p, d);
      } else {
        p.skipChildren();
      }
    }
    return found;
  }

  private static CachedTokens details(JsonParser p, JsonToken d) throws IOException {
    if (d == JsonToken.VALUE_NULL) {
      return CachedTokens.NO_DETAILS;
    }
    if (d != JsonToken.START_OBJECT) {
      p.skipChildren();
      return CachedTokens.MALFORMED;
    }
    CachedTokens found = CachedTokens.NO_CACHED_TOKENS;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken c = p.nextToken();
      if ("cached_tokens".equals(name)) {
        found = count(p, c);
      } else {
        p.skipChildren();
      }
    }
    return found;
  }

  private static CachedTokens count(JsonParser p, JsonToken c) throws IOException {
    if (c == JsonToken.VALUE_NULL) {
      return CachedTokens.NO_CACHED_TOKENS;
    }
    if (c != JsonToken.VALUE_NUMBER_INT) {
      p.skipChildren();
      return CachedTokens.MALFORMED;
    }
    if (p.getNumberType() != JsonParser.NumberType.INT
        && p.getNumberType() != JsonParser.NumberType.LONG) {
      return CachedTokens.MALFORMED;
    }
    long n = p.getLongValue();
    return n < 0 || n > Integer.MAX_VALUE ? CachedTokens.MALFORMED : new CachedTokens.Reported(n);
  }

  /**
   * The last SSE event of {@code tail[0, len)} that carries a {@code usage} object decides; {@code
   * data: [DONE]}, comments and events without usage are passed over. Lines end in LF, CRLF or CR;
   * an event's {@code data} lines are joined with LF (the SSE rules).
   *
   * @param cut whether {@code tail} lost the stream's head: its first event may be partial and is
   *     not read
   */
  public static CachedTokens sseTail(byte[] tail, int len, boolean cut) {
    // Walk the events backwards: find each event's span, newest first.
    int end = len;
    boolean malformed = false;
    while (end > 0) {
      int start = eventStart(tail, end);
      boolean partial = cut && start == 0;
      if (!partial) {
        byte[] data = data(tail, start, end);
        if (data != null && !isDone(data)) {
          CachedTokens r = json(data, 0, data.length);
          if (r == CachedTokens.MALFORMED) {
            malformed = true;
          } else if (r != CachedTokens.NO_USAGE) {
            return r;
          }
        }
      }
      end = start;
      // step over the blank line(s) between events
      while (end > 0 && (tail[end - 1] == '\n' || tail[end - 1] == '\r')) {
        end--;
      }
    }
    return malformed ? CachedTokens.MALFORMED : CachedTokens.NO_USAGE;
  }

  /**
   * Where the event that ends at {@code end} begins: just after the previous blank line (two line
   * breaks in a row), or 0.
   */
  private static int eventStart(byte[] b, int end) {
    int i = end - 1;
    // skip the event's own trailing line breaks
    while (i >= 0 && (b[i] == '\n' || b[i] == '\r')) {
      i--;
    }
    for (; i >= 0; i--) {
      if (b[i] == '\n' || b[i] == '\r') {
        // a line break: blank line if the byte before is also a line break that ends a line
        int j = i - 1;
        if (b[i] == '\n' && j >= 0 && b[j] == '\r') {
          j--; // CRLF is one break
        }
        if (j >= 0 && (b[j] == '\n' || b[j] == '\r')) {
          return i + 1;
        }
      }
    }
    return 0;
  }

  /** The event's data (its {@code data} lines joined with LF), or null when it has none. */
  private static byte[] data(byte[] b, int start, int end) {
    java.io.ByteArrayOutputStream out = null;
    int i = start;
    while (i < end) {
      int lineEnd = i;
      while (lineEnd < end && b[lineEnd] != '\n' && b[lineEnd] != '\r') {
        lineEnd++;
      }
      if (startsWith(b, i, lineEnd, "data")) {
        int v = i + 4;
        if (v == lineEnd || b[v] == ':') {
          v = Math.min(lineEnd, v + 1);
          if (v < lineEnd && b[v] == ' ') {
            v++;
          }
          if (out == null) {
            out = new java.io.ByteArrayOutputStream(lineEnd - v);
          } else {
            out.write('\n');
          }
          out.write(b, v, lineEnd - v);
        }
      }
      i = lineEnd;
      if (i < end && b[i] == '\r') {
        i++;
      }
      if (i < end && b[i] == '\n') {
        i++;
      }
    }
    return out == null ? null : out.toByteArray();
  }

  private static boolean startsWith(byte[] b, int from, int to, String s) {
    if (to - from < s.length()) {
      return false;
    }
    for (int k = 0; k < s.length(); k++) {
      if (b[from + k] != s.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isDone(byte[] data) {
    String s = new String(data, java.nio.charset.StandardCharsets.US_ASCII).trim();
    return s.equals("[DONE]");
  }
}
