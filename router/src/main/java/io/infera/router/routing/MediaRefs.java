package io.infera.router.routing;

import io.infera.router.kv.ImageKey;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Finds the images, audio and video of a request body and keys each by its reference
 * (docs/routing.md, "Multimodal requests"): content parts of chat {@code messages} in OpenAI shape
 * ({@code image_url}, {@code input_image}, {@code image}, {@code input_audio}, {@code audio_url},
 * {@code video_url}, the embeds and PIL forms) and Anthropic shape ({@code {"type": "image",
 * "source": {…}}}, also inside {@code tool_result} content), the Responses API's {@code input}, and
 * a top-level {@code images} list. The body is client input: every shape is accepted or ignored,
 * never thrown on, and the work is bounded ({@link #MAX_KEYS}, {@link #MAX_PARTS}, {@link
 * #MAX_DEPTH}, {@link #MAX_URL_CHARS}). Only the 64-bit keys are kept, never a reference. Pure and
 * thread-safe; runs on the analysis pool with the rest of {@link RequestAnalyzer}.
 */
public final class MediaRefs {

  /** Keys per request; further media are counted but not keyed ({@code too_many}). */
  public static final int MAX_KEYS = 32;

  /** Content parts and list entries looked at per request; the scan stops there. */
  public static final int MAX_PARTS = 4096;

  /** Nesting of content lists followed (a tool result's content inside a message's content…). */
  public static final int MAX_DEPTH = 4;

  /** Longest http(s) URL keyed ({@code too_long} beyond); inline content is bounded by the body. */
  public static final int MAX_URL_CHARS = 8192;

  private MediaRefs() {}

  /** Why a medium has no key. */
  public enum Unkeyed {
    /** More than {@link #MAX_KEYS} media in the request. */
    TOO_MANY("too_many"),
    /** An http(s) URL longer than {@link #MAX_URL_CHARS}. */
    TOO_LONG("too_long"),
    /** No usable reference (absent, empty, not a string, an object the router cannot key). */
    NO_REFERENCE("no_reference");

    private final String label;

    Unkeyed(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /**
   * What a request carries.
   *
   * @param items media parts found (images, audio, video; at most {@link #MAX_PARTS})
   * @param keys the distinct keys of the keyed ones, in order of appearance
   * @param unkeyed per {@link Unkeyed} ordinal, media found without a key
   */
  public record Media(int items, long[] keys, int[] unkeyed) {

    /** A text-only request. */
    public static final Media NONE = new Media(0, new long[0], new int[Unkeyed.values().length]);

    public Media {
      keys = keys.clone();
      unkeyed = unkeyed.clone();
    }

    /** True when the request carries any image, audio or video. */
    public boolean multimodal() {
      return items > 0;
    }

    public int unkeyed(Unkeyed why) {
      return unkeyed[why.ordinal()];
    }

    /** A copy of the keys (the record's own array is not exposed for writing). */
    @Override
    public long[] keys() {
      return keys.clone();
    }

    /** The number of keys, without copying them. */
    public int keyCount() {
      return keys.length;
    }

    /** Key {@code i}, without copying. */
    public long key(int i) {
      return keys[i];
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Media m
          && items == m.items
          && Arrays.equals(keys, m.keys)
          && Arrays.equals(unkeyed, m.unkeyed);
    }

    @Override
    public int hashCode() {
      return 31 * (31 * items + Arrays.hashCode(keys)) + Arrays.hashCode(unkeyed);
    }

    @Override
    public String toString() {
      return "Media[items=" + items + ", keys=" + keys.length + "]";
    }
  }

  /** The media of one parsed request body (any JSON value: non-objects carry none). */
  public static Media of(Object body) {
    if (!(body instanceof Map<?, ?> m)) {
      return Media.NONE;
    }
    Scan s = new Scan();
    if (m.get("messages") instanceof List<?> messages) {
      for (Object msg : messages) {
        if (s.full()) {
          break;
        }
        if (msg instanceof Map<?, ?> mm) {
          s.content(mm.get("content"), 0);
        }
      }
    }
    Object input = m.get("input");
    if (input instanceof List<?> items) {
      // Responses API: message items with content lists, or bare content parts.
      for (Object item : items) {
        if (s.full()) {
          break;
        }
        if (item instanceof Map<?, ?> im) {
          if (im.get("content") instanceof List<?>) {
            s.content(im.get("content"), 0);
          } else {
            s.part(im, 0);
          }
        }
      }
    }
    if (m.get("images") instanceof List<?> images) {
      for (Object image : images) {
        if (!s.visit()) {
          break;
        }
        s.medium(reference(image instanceof Map<?, ?> im ? im.get("url") : image), null);
      }
    }
    return s.result();
  }

  /** One request's scan state: counts, keys, and the part budget. */
  private static final class Scan {
    int items;
    int visited;
    final long[] keys = new long[MAX_KEYS];
    int keyCount;
    final int[] unkeyed = new int[Unkeyed.values().length];

    boolean full() {
      return visited >= MAX_PARTS;
    }

    /** Counts one part or entry against the budget; false once it is spent. */
    boolean visit() {
      if (visited >= MAX_PARTS) {
        return false;
      }
      visited++;
      return true;
    }

    /** A message's (or a tool result's) content: a string, or a list of parts. */
    void content(Object content, int depth) {
      if (!(content instanceof List<?> parts) || depth >= MAX_DEPTH) {
        return;
      }
      for (Object p : parts) {
        if (full()) {
          return;
        }
        if (p instanceof Map<?, ?> part) {
          part(part, depth);
        } else {
          visit();
        }
      }
    }

    void part(Map<?, ?> part, int depth) {
      if (!visit()) {
        return;
      }
      Object type = part.get("type");
      String t = type instanceof String s ? s : (part.containsKey("image_url") ? "image_url" : "");
      Object uuid = part.get("uuid");
      switch (t) {
        case "image_url", "input_image" -> medium(url(part.get("image_url")), uuid);
        case "audio_url" -> medium(url(part.get("audio_url")), uuid);
        case "video_url" -> medium(url(part.get("video_url")), uuid);
        case "image" -> {
          Object source = part.get("source");
          medium(source != null ? anthropicSource(source) : reference(part.get("image")), uuid);
        }
        case "input_audio" -> medium(inputAudio(part.get("input_audio")), uuid);
        case "image_embeds", "audio_embeds", "image_pil" -> medium(reference(part.get(t)), uuid);
        case "tool_result" -> content(part.get("content"), depth + 1);
        default -> {
          // text, thinking, tool_use, documents and kinds added later carry no image
        }
      }
    }

    /**
     * One medium: keyed by its reference, else by its {@code uuid} (vLLM's client-supplied
     * identity, also valid with no content), else counted without a key.
     */
    void medium(Object ref, Object uuid) {
      items++;
      CharSequence r = ref instanceof CharSequence c && c.length() > 0 ? c : null;
      if (r == null && uuid instanceof String u && !u.isEmpty() && u.length() <= MAX_URL_CHARS) {
        r = new Prefixed("uuid:", u);
      }
      if (r == null) {
        unkeyed[Unkeyed.NO_REFERENCE.ordinal()]++;
        return;
      }
      if (isUrl(r) && r.length() > MAX_URL_CHARS) {
        unkeyed[Unkeyed.TOO_LONG.ordinal()]++;
        return;
      }
      if (keyCount == MAX_KEYS) {
        unkeyed[Unkeyed.TOO_MANY.ordinal()]++;
        return;
      }
      long key = r instanceof Prefixed p ? ImageKey.ofJoined(p.parts) : ImageKey.of(r);
      for (int i = 0; i < keyCount; i++) {
        if (keys[i] == key) {
          return; // the same image twice in one request is one key
        }
      }
      keys[keyCount++] = key;
    }

    Media result() {
      if (items == 0) {
        return Media.NONE;
      }
      return new Media(items, Arrays.copyOf(keys, keyCount), unkeyed);
    }
  }

  private static boolean isUrl(CharSequence r) {
    return startsWith(r, "http://") || startsWith(r, "https://");
  }

  private static boolean startsWith(CharSequence s, String prefix) {
    if (s.length() < prefix.length()) {
      return false;
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (Character.toLowerCase(s.charAt(i)) != prefix.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** {@code "…"} or {@code {"url": "…"}}. */
  private static Object url(Object v) {
    return v instanceof Map<?, ?> m ? reference(m.get("url")) : reference(v);
  }

  private static Object reference(Object v) {
    return v instanceof String s ? s : null;
  }

  /**
   * Anthropic's image source: {@code base64} keyed as the equivalent {@code data:} URI (the same
   * image sent as an OpenAI data URL has the same key), {@code url} by its URL, {@code file} by its
   * file id.
   */
  private static Object anthropicSource(Object source) {
    if (!(source instanceof Map<?, ?> s)) {
      return null;
    }
    Object type = s.get("type");
    if ("base64".equals(type)
        && s.get("data") instanceof String data
        && s.get("media_type") instanceof String mediaType) {
      return new Prefixed("data:", mediaType, ";base64,", data);
    }
    if ("url".equals(type)) {
      return reference(s.get("url"));
    }
    if ("file".equals(type) && s.get("file_id") instanceof String id && !id.isEmpty()) {
      return new Prefixed("file:", id);
    }
    return null;
  }

  /**
   * OpenAI's {@code {"data": base64, "format": "wav"}}, keyed as {@code data:audio/wav;base64,…}.
   */
  private static Object inputAudio(Object v) {
    if (v instanceof Map<?, ?> a && a.get("data") instanceof String data && !data.isEmpty()) {
      String format = a.get("format") instanceof String f ? f : "";
      return new Prefixed("data:audio/", format, ";base64,", data);
    }
    return null;
  }

  /** A reference made of parts, keyed without joining them ({@link ImageKey#ofJoined}). */
  private static final class Prefixed implements CharSequence {
    final CharSequence[] parts;
    private final int length;

    Prefixed(CharSequence... parts) {
      this.parts = parts;
      long n = 0;
      for (CharSequence p : parts) {
        n += p.length();
      }
      this.length = (int) Math.min(n, Integer.MAX_VALUE);
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public char charAt(int index) {
      int i = index;
      for (CharSequence p : parts) {
        if (i < p.length()) {
          return p.charAt(i);
        }
        i -= p.length();
      }
      throw new IndexOutOfBoundsException(index);
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return toString().subSequence(start, end);
    }

    @Override
    public String toString() {
      StringBuilder b = new StringBuilder();
      for (CharSequence p : parts) {
        b.append(p);
      }
      return b.toString();
    }
  }
}
