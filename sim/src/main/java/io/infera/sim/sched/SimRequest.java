package io.infera.sim.sched;

import java.util.Objects;

/** One generation request as the simulated engine receives it (already tokenized). */
public final class SimRequest {

  private final String id;
  private final int[] promptTokens;
  private final int maxTokens;
  private final String loraName;
  private final double arrivalMs;
  private final int[] outputTokens;

  /**
   * @param id unique among the engine's live requests, non-null
   * @param promptTokens at least one token; copied
   * @param maxTokens tokens to generate, {@code >= 1} (the simulator never stops early)
   * @param loraName LoRA adapter, or null
   * @param arrivalMs when the request arrived, in the caller's clock (informational: the engine
   *     does not read it)
   */
  public SimRequest(
      String id, int[] promptTokens, int maxTokens, String loraName, double arrivalMs) {
    this(id, promptTokens, maxTokens, loraName, arrivalMs, null);
  }

  /**
   * Like the five-argument constructor, with the tokens to generate fixed in advance (so a client
   * that sends the answer back verbatim in its next prompt hits the answer's cached blocks).
   *
   * @param outputTokens null (the engine picks) or at least {@code maxTokens} token ids; copied
   */
  public SimRequest(
      String id,
      int[] promptTokens,
      int maxTokens,
      String loraName,
      double arrivalMs,
      int[] outputTokens) {
    this.id = Objects.requireNonNull(id, "id");
    Objects.requireNonNull(promptTokens, "promptTokens");
    if (promptTokens.length == 0) {
      throw new IllegalArgumentException("request " + id + ": empty prompt");
    }
    if (maxTokens < 1) {
      throw new IllegalArgumentException("request " + id + ": maxTokens must be >= 1");
    }
    this.promptTokens = promptTokens.clone();
    this.maxTokens = maxTokens;
    this.loraName = loraName;
    this.arrivalMs = arrivalMs;
    if (outputTokens != null && outputTokens.length < maxTokens) {
      throw new IllegalArgumentException(
          "request "
              + id
              + ": "
              + outputTokens.length
              + " output tokens given for maxTokens "
              + maxTokens);
    }
    this.outputTokens = outputTokens == null ? null : outputTokens.clone();
  }

  /** The request id, unique among the engine's live requests. */
  public String id() {
    return id;
  }

  /** A copy of the prompt tokens. */
  public int[] promptTokens() {
    return promptTokens.clone();
  }

  /** Prompt length in tokens, without copying. */
  public int promptLength() {
    return promptTokens.length;
  }

  /** Tokens to generate, {@code >= 1}; the request finishes with reason "length" after them. */
  public int maxTokens() {
    return maxTokens;
  }

  /** The LoRA adapter, or null. */
  public String loraName() {
    return loraName;
  }

  /** Arrival time in the caller's clock (ms), carried for the caller's accounting. */
  public double arrivalMs() {
    return arrivalMs;
  }

  /** The output token at {@code index}, or {@code fallback} when the engine picks. */
  int outputToken(int index, int fallback) {
    return outputTokens == null ? fallback : outputTokens[index];
  }

  int[] promptTokensUnsafe() {
    return promptTokens;
  }

  @Override
  public String toString() {
    return "SimRequest{id="
        + id
        + ", prompt="
        + promptTokens.length
        + ", maxTokens="
        + maxTokens
        + (loraName == null ? "" : ", lora=" + loraName)
        + "}";
  }
}
