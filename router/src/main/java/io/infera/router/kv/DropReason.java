package io.infera.router.kv;

/** Why the index did not apply (all or part of) an event; each is a counter in the stats. */
public enum DropReason {
  /** A payload that could not be decoded (counted by the transport that received it). */
  DECODE_ERROR,
  /** An event of a type this router does not know (skipped by the decoder). */
  UNKNOWN_EVENT_TYPE,
  /** One event that did not decode in a batch that did (skipped by the decoder, batch kept). */
  MALFORMED_EVENT,
  /**
   * An offload tier's {@code BlockStored} placeholder: no tokens, block size 0, a non-GPU medium
   * (skipped by the decoder; its router hash is unknowable).
   */
  OFFLOAD_PLACEHOLDER,
  /** A batch whose sequence number was already applied. */
  DUPLICATE_BATCH,
  /** BlockStored whose non-null parent hash is not in the source's view. */
  UNKNOWN_PARENT,
  /**
   * BlockStored whose block size cannot be used: outside {@code [1, PrefixIndex.MAX_BLOCK_SIZE]},
   * or new to a fleet that already uses {@code PrefixIndex.MAX_BLOCK_SIZES} sizes.
   */
  BLOCK_SIZE_MISMATCH,
  /** BlockStored whose token count is not blocks × block size. */
  TOKEN_COUNT_MISMATCH,
  /** BlockStored with a numeric LoRA id but no LoRA name, so its router hash is unknowable. */
  LORA_WITHOUT_NAME,
  /** A removed block the source's view did not hold (its store was missed or dropped). */
  UNKNOWN_BLOCK_REMOVED,
  /** Events on a lower cache tier (CPU, disk, …): kept out of device matching. */
  LOWER_TIER,
  /** Events of a non-full-attention KV-cache group: kept out of prefix matching. */
  NON_FULL_ATTENTION,
  /**
   * A batch or snapshot of a rank the worker does not have (at or above its discovered
   * data-parallel size): dropped whole, no view is created for it.
   */
  RANK_OUT_OF_RANGE,
  /** Blocks not stored because their source's view is at {@code index.maxBlocksPerSource}. */
  SOURCE_FULL,
  /** Blocks not stored because all views together are at {@code index.maxBlocks}. */
  INDEX_FULL,
  /**
   * A reset (sequence down, {@code AllBlocksCleared}, another block size) refused because the
   * source used up its {@code events.resetsBurst}; the view is kept and marked degraded.
   */
  RESET_RATE_LIMITED;

  /** Metric label: the name in lower case. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
