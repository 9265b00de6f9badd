package io.infera.sim.workload;

import java.util.List;

/**
 * Sizes of a workload, known before it runs. Answers are not known in advance, so token totals come
 * in two flavours: without earlier answers (what the workload itself contributes) and with every
 * earlier answer at its full {@code outputTokens} (an upper bound: engines may stop early).
 *
 * @param sessions number of sessions
 * @param requests number of requests (turns over all sessions)
 * @param promptTokens Σ over requests of system + user tokens up to that turn, answers not counted
 * @param promptTokensUpperBound {@code promptTokens} plus every earlier answer at full length
 * @param outputTokens Σ of every turn's {@code outputTokens} (the most the engines can generate)
 * @param distinctPrefixTokens tokens in the union of all prompts' prefixes (answers not counted):
 *     the least a fleet with an unbounded cache must compute; computed from the generator's
 *     structure, ignoring chance agreements between random words
 */
public record WorkloadStats(
    int sessions,
    int requests,
    long promptTokens,
    long promptTokensUpperBound,
    long outputTokens,
    long distinctPrefixTokens) {

  /**
   * The best hit ratio any routing can reach with unbounded caches, ignoring answers: {@code 1 −
   * distinctPrefixTokens / promptTokens} (0 for an empty workload).
   */
  public double idealHitRatio() {
    return promptTokens == 0 ? 0 : 1.0 - (double) distinctPrefixTokens / promptTokens;
  }

  /** Sums the sizes of {@code sessions}; {@code distinctPrefixTokens} comes from the generator. */
  public static WorkloadStats of(List<Session> sessions, long distinctPrefixTokens) {
    int requests = 0;
    long prompt = 0;
    long upper = 0;
    long output = 0;
    for (Session s : sessions) {
      long history = s.systemTokens().length;
      long answers = 0;
      for (Turn t : s.turns()) {
        history += t.userTokens().length;
        requests++;
        prompt += history;
        upper += history + answers;
        output += t.outputTokens();
        answers += t.outputTokens();
      }
    }
    return new WorkloadStats(
        sessions.size(), requests, prompt, upper, output, distinctPrefixTokens);
  }
}
