package io.infera.sim.engine;

import io.infera.router.routing.MediaRefs;

/**
 * The simulator's stand-in for an engine's image processor: each image, audio clip or video of a
 * request becomes a deterministic run of prompt tokens derived from its key (the router's {@link
 * MediaRefs} key of its reference), {@value #MIN_TOKENS} to {@value #MAX_TOKENS} long, placed
 * before the rendered text. The content stays opaque; the same image always yields the same tokens,
 * so a repeat image on the same engine hits the blocks its first request cached, and two images
 * never share a block. Media without a key get tokens of their position (they never repeat across
 * requests in a meaningful way, as unkeyed references cannot be compared).
 */
public final class ImageTokens {

  /** Fewest tokens per image. */
  static final int MIN_TOKENS = 256;

  /** Most tokens per image. */
  static final int MAX_TOKENS = 1024;

  /** Image token ids start here, above every text id the simulated vocabularies use. */
  static final int FIRST_ID = 300_000;

  private static final int ID_RANGE = 50_000;

  private ImageTokens() {}

  /** {@code text} with the request's media tokens in front; {@code text} itself when none. */
  public static int[] withMedia(MediaRefs.Media media, int[] text) {
    if (!media.multimodal()) {
      return text;
    }
    int n = media.items();
    long[] seeds = new long[n];
    int total = 0;
    for (int i = 0; i < n; i++) {
      seeds[i] = i < media.keyCount() ? media.key(i) : 0x5EED_0000L + i;
      total += length(seeds[i]);
    }
    int[] out = new int[total + text.length];
    int at = 0;
    for (long seed : seeds) {
      long x = seed;
      for (int t = 0, len = length(seed); t < len; t++) {
        x = mix(x + 0x9E3779B97F4A7C15L);
        out[at++] = FIRST_ID + (int) Math.floorMod(x, (long) ID_RANGE);
      }
    }
    System.arraycopy(text, 0, out, at, text.length);
    return out;
  }

  /** Tokens of the image keyed {@code key}. */
  public static int length(long key) {
    return MIN_TOKENS + (int) Math.floorMod(mix(key), (long) (MAX_TOKENS - MIN_TOKENS + 1));
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
