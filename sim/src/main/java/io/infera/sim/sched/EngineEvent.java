package io.infera.sim.sched;

/** What a completed engine step produced for one request, stamped with the step's end time. */
public sealed interface EngineEvent {

  /** The request the event belongs to. */
  String requestId();

  /**
   * The request's first generated token (its prefill finished): marks TTFT. The same token is also
   * reported as {@code Token} index 0, right after this event.
   *
   * @param atMs step end, in the engine clock (ms)
   */
  record FirstToken(String requestId, int tokenId, double atMs) implements EngineEvent {}

  /**
   * A generated token.
   *
   * @param index 0 for the first token (also reported by {@link FirstToken}), 1.. for later ones
   * @param atMs step end, in the engine clock (ms)
   */
  record Token(String requestId, int tokenId, int index, double atMs) implements EngineEvent {}

  /**
   * The request is done and its blocks were released; no event follows for it.
   *
   * @param promptTokens prompt length
   * @param cachedTokens prompt tokens served from the prefix cache at its first admission
   * @param completionTokens tokens generated
   * @param finishReason {@code "length"} (maxTokens reached) or {@code "abort"}
   * @param atMs step end (or abort time), in the engine clock (ms)
   */
  record Finished(
      String requestId,
      int promptTokens,
      int cachedTokens,
      int completionTokens,
      String finishReason,
      double atMs)
      implements EngineEvent {}
}
