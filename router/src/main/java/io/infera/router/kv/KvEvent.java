package io.infera.router.kv;

import java.util.Arrays;
import java.util.Objects;
import java.util.Set;

/**
 * One KV-cache event as an engine sends it (docs/contracts.md, "KV-event wire formats"), after
 * decoding and normalization.
 *
 * <p>Hashes here are <em>engine</em> hashes, normalized to unsigned 64-bit values; token ids are
 * flattened (bigram pairs reduced to their first element).
 */
public sealed interface KvEvent {

  /** Memory tier of the device cache; any other medium is a lower tier (CPU, disk, …). */
  String MEDIUM_GPU = "GPU";

  /** Cache-spec kinds whose blocks take part in prefix matching (absent counts as full). */
  Set<String> FULL_ATTENTION_KINDS =
      Set.of("full_attention", "mla_attention", "sink_full_attention");

  /** True when {@code medium} is absent or the GPU tier. */
  static boolean isDeviceTier(String medium) {
    return medium == null || MEDIUM_GPU.equals(medium);
  }

  /** True when {@code kind} is absent or a full-attention kind. */
  static boolean isFullAttention(String kind) {
    return kind == null || FULL_ATTENTION_KINDS.contains(kind);
  }

  /**
   * Blocks were written to the cache.
   *
   * @param blockHashes engine hashes, one per block, in chain order
   * @param parentBlockHash engine hash of the block before the first one, or null for a chain root
   * @param tokenIds {@code blockHashes.length * blockSize} tokens, flattened
   * @param loraId deprecated numeric adapter id, or null
   * @param loraName adapter name, or null
   * @param medium cache tier, or null (= GPU)
   * @param groupIdx KV-cache group index, or null
   * @param kvCacheSpecKind cache-spec kind of the group, or null (= full attention)
   * @param cacheSalt tenant cache salt (vLLM: block 0's extra keys; SGLang: top-level or metadata),
   *     or null
   */
  record BlockStored(
      long[] blockHashes,
      Long parentBlockHash,
      int[] tokenIds,
      int blockSize,
      Long loraId,
      String loraName,
      String medium,
      Integer groupIdx,
      String kvCacheSpecKind,
      String cacheSalt)
      implements KvEvent {

    public BlockStored {
      Objects.requireNonNull(blockHashes, "blockHashes");
      Objects.requireNonNull(tokenIds, "tokenIds");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BlockStored b
          && Arrays.equals(blockHashes, b.blockHashes)
          && Objects.equals(parentBlockHash, b.parentBlockHash)
          && Arrays.equals(tokenIds, b.tokenIds)
          && blockSize == b.blockSize
          && Objects.equals(loraId, b.loraId)
          && Objects.equals(loraName, b.loraName)
          && Objects.equals(medium, b.medium)
          && Objects.equals(groupIdx, b.groupIdx)
          && Objects.equals(kvCacheSpecKind, b.kvCacheSpecKind)
          && Objects.equals(cacheSalt, b.cacheSalt);
    }

    @Override
    public int hashCode() {
      return Objects.hash(
          Arrays.hashCode(blockHashes),
          parentBlockHash,
          Arrays.hashCode(tokenIds),
          blockSize,
          loraId,
          loraName,
          medium,
          groupIdx,
          kvCacheSpecKind,
          cacheSalt);
    }

    @Override
    public String toString() {
      return "BlockStored[blocks="
          + blockHashes.length
          + ", parent="
          + (parentBlockHash == null ? "null" : BlockHasher.hex(parentBlockHash))
          + ", tokens="
          + tokenIds.length
          + ", blockSize="
          + blockSize
          + ", lora="
          + loraName
          + ", medium="
          + medium
          + ", group="
          + groupIdx
          + ", kind="
          + kvCacheSpecKind
          + "]";
    }
  }

  /**
   * Blocks were evicted.
   *
   * @param blockHashes engine hashes
   * @param medium cache tier, or null (= GPU)
   * @param groupIdx KV-cache group index, or null
   */
  record BlockRemoved(long[] blockHashes, String medium, Integer groupIdx) implements KvEvent {

    public BlockRemoved {
      Objects.requireNonNull(blockHashes, "blockHashes");
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BlockRemoved b
          && Arrays.equals(blockHashes, b.blockHashes)
          && Objects.equals(medium, b.medium)
          && Objects.equals(groupIdx, b.groupIdx);
    }

    @Override
    public int hashCode() {
      return Objects.hash(Arrays.hashCode(blockHashes), medium, groupIdx);
    }

    @Override
    public String toString() {
      return "BlockRemoved[blocks=" + blockHashes.length + ", medium=" + medium + "]";
    }
  }

  /**
   * The engine dropped its whole cache (reset, or restart), or one tier of it.
   *
   * @param medium the tier cleared (ATOM may name one), or null for the whole cache
   */
  record AllBlocksCleared(String medium) implements KvEvent {

    /** The whole cache. */
    public AllBlocksCleared() {
      this(null);
    }
  }
}
