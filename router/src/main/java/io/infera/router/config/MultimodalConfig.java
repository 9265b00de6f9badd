package io.infera.router.config;

/**
 * Image affinity for multimodal requests ({@code policy.multimodal.*}; docs/routing.md, "Multimodal
 * requests"). Always on under {@code kv-aware}: the only setting is its memory.
 *
 * @param affinityEntries image keys remembered per worker (a bounded LRU), in [1, 1000000]
 */
public record MultimodalConfig(int affinityEntries) {

  public static final int DEFAULT_AFFINITY_ENTRIES = 1024;

  public static final int MAX_AFFINITY_ENTRIES = 1_000_000;

  public static final MultimodalConfig DEFAULTS = new MultimodalConfig(DEFAULT_AFFINITY_ENTRIES);

  public MultimodalConfig {
    if (affinityEntries < 1 || affinityEntries > MAX_AFFINITY_ENTRIES) {
      throw new IllegalArgumentException(
          "affinityEntries: expected an integer in [1, "
              + MAX_AFFINITY_ENTRIES
              + "], got "
              + affinityEntries);
    }
  }
}
