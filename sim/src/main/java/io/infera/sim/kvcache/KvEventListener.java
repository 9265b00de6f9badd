package io.infera.sim.kvcache;

/**
 * Receives KV-cache events in order, with the engine's own block hashes.
 *
 * <p>Called synchronously on the engine thread from inside {@link BlockManager} operations, in
 * causal order (a block is always removed after it was stored, and a block's parent is stored
 * before it). Implementations must not call back into the manager.
 */
public interface KvEventListener {

  /** A listener that drops every event. */
  KvEventListener NONE =
      new KvEventListener() {
        @Override
        public void blockStored(
            long[] engineHashes, Long parentEngineHash, int[] tokenIds, String loraName) {}

        @Override
        public void blockRemoved(long[] engineHashes) {}

        @Override
        public void allCleared() {}
      };

  /**
   * Full blocks were written to the cache (vLLM {@code BlockStored}).
   *
   * @param engineHashes engine hashes of one chain of consecutive blocks, parent first; never
   *     empty; the array is owned by the receiver
   * @param parentEngineHash engine hash of the block before {@code engineHashes[0]} (itself
   *     cached), or null when the first block starts the chain
   * @param tokenIds the blocks' tokens, {@code engineHashes.length * blockSize} of them, flattened;
   *     owned by the receiver
   * @param loraName LoRA adapter the blocks were computed with, or null
   */
  void blockStored(long[] engineHashes, Long parentEngineHash, int[] tokenIds, String loraName);

  /**
   * Cached blocks were evicted (vLLM {@code BlockRemoved}); each hash was stored before and is
   * removed at most once per store.
   *
   * @param engineHashes never empty; owned by the receiver
   */
  void blockRemoved(long[] engineHashes);

  /** Every cached block was dropped (vLLM {@code AllBlocksCleared}, after a prefix-cache reset). */
  void allCleared();
}
