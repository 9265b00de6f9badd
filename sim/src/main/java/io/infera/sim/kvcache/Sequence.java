package io.infera.sim.kvcache;

import java.util.Arrays;

/**
 * One live sequence's view of the KV cache: its tokens (prompt, then generated) and the blocks
 * holding them. Created by {@link BlockManager#admit} and mutated only through its manager; the
 * accessors are read-only. Single-threaded, like its manager.
 */
public final class Sequence {

  final BlockManager owner;
  final long id;
  final String loraName;
  final int promptTokens;
  final int cachedTokens;
  int[] tokens;
  int length;
  // Physical block ids in token order: blocks[b] holds tokens [b * size, (b + 1) * size).
  int[] blocks;
  int blockCount;
  // Engine hashes of the leading full blocks whose KV is computed; each such block is cached.
  long[] hashes;
  int hashedBlocks;
  int computedTokens;
  boolean released;

  Sequence(
      BlockManager owner, long id, int[] prompt, String loraName, int cachedTokens, int[] blocks) {
    this.owner = owner;
    this.id = id;
    this.loraName = loraName;
    this.promptTokens = prompt.length;
    this.cachedTokens = cachedTokens;
    this.tokens = Arrays.copyOf(prompt, prompt.length + 16);
    this.length = prompt.length;
    this.blocks = blocks;
    this.blockCount = blocks.length;
    this.hashes = new long[blocks.length];
    this.computedTokens = cachedTokens;
  }

  /** The id given to {@link BlockManager#admit}. */
  public long id() {
    return id;
  }

  /** Prompt length in tokens at admission, {@code >= 1}. */
  public int promptTokens() {
    return promptTokens;
  }

  /**
   * Prompt tokens served from the prefix cache at admission: a multiple of the block size, at most
   * {@code promptTokens() - 1} (the last prompt token is always computed, as in vLLM).
   */
  public int cachedTokens() {
    return cachedTokens;
  }

  /** Tokens so far: prompt plus appended generated tokens. */
  public int length() {
    return length;
  }

  /** A copy of the prompt followed by the generated tokens, {@link #length()} of them. */
  public int[] tokens() {
    return Arrays.copyOf(tokens, length);
  }

  /** The LoRA adapter the sequence runs with, or null. */
  public String loraName() {
    return loraName;
  }

  /**
   * Tokens whose KV is computed: {@code [0, computedTokens())}, at least {@link #cachedTokens()}.
   */
  public int computedTokens() {
    return computedTokens;
  }

  /** Blocks this sequence references (shared prefix blocks included). */
  public int blockCount() {
    return blockCount;
  }

  /** True once {@link BlockManager#release} dropped the sequence's references. */
  public boolean isReleased() {
    return released;
  }

  void addToken(int token) {
    if (length == tokens.length) {
      tokens = Arrays.copyOf(tokens, tokens.length + Math.max(16, tokens.length / 2));
    }
    tokens[length++] = token;
  }

  void addBlock(int block) {
    if (blockCount == blocks.length) {
      blocks = Arrays.copyOf(blocks, blocks.length + Math.max(4, blocks.length / 2));
      hashes = Arrays.copyOf(hashes, blocks.length);
    }
    blocks[blockCount++] = block;
  }

  @Override
  public String toString() {
    return "Sequence{id="
        + id
        + ", length="
        + length
        + ", computed="
        + computedTokens
        + ", cached="
        + cachedTokens
        + ", blocks="
        + blockCount
        + (released ? ", released" : "")
        + "}";
  }
}
