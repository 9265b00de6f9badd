package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.util.Map;

/**
 * A multimodal request's image affinity, the term that replaces its text overlap in the kv-aware
 * cost (docs/routing.md, "Multimodal requests"): the router tokenizes text only and an image
 * placeholder is the same for every image, so text hits would route one image's KV for another.
 *
 * @param images media in the request (keyed or not), {@code >= 1}
 * @param blocks the request's size in blocks as the term counts it: its text blocks plus an
 *     estimate per image, {@code >= 1}
 * @param held per worker, how many of the request's image keys it served lately (absent: 0)
 */
public record ImageOverlap(int images, int blocks, Map<WorkerId, Integer> held) {

  public ImageOverlap {
    if (images < 1) {
      throw new IllegalArgumentException("images must be >= 1, got " + images);
    }
    if (blocks < 1) {
      throw new IllegalArgumentException("blocks must be >= 1, got " + blocks);
    }
    held = Map.copyOf(held);
  }

  /** Request images {@code worker} holds, at most {@link #images}. */
  public int held(WorkerId worker) {
    return Math.min(images, held.getOrDefault(worker, 0));
  }

  /**
   * The blocks {@code worker} is assumed to hold, weighted like cache hits: the request's blocks
   * times the share of its images the worker holds.
   */
  public double hitBlocks(WorkerId worker) {
    return (double) blocks * held(worker) / images;
  }
}
