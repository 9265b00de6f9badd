package io.infera.sim.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One conversation: a system prompt and one or more turns. The driver sends turn 0 at {@code
 * startMs} and turn k+1 only after turn k's answer arrived plus turn k+1's {@link Turn#thinkMs}
 * (causal pacing); a single-turn session is one open-loop request.
 *
 * <p>The prompt of turn k is {@code systemTokens ‖ user_0 ‖ answer_0 ‖ … ‖ user_k}, built by the
 * driver with the engine's real answers ({@link #promptTokens}, {@link #messages}).
 *
 * @param id unique within the workload
 * @param startMs when turn 0 is sent, ms from the start of the run, ≥ 0
 * @param systemTokens the system prompt, possibly empty; shared between sessions of a group (the
 *     same array): treat as read-only
 * @param systemText the same content as text; empty when there is no system prompt
 * @param turns at least one
 * @param group sessions with the same group share a prompt prefix (a system prompt, a trace's first
 *     block); a session that shares nothing has a group of its own
 */
public record Session(
    String id,
    double startMs,
    int[] systemTokens,
    String systemText,
    List<Turn> turns,
    String group) {

  public Session {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(systemTokens, "systemTokens");
    Objects.requireNonNull(systemText, "systemText");
    Objects.requireNonNull(group, "group");
    turns = List.copyOf(turns);
    if (turns.isEmpty()) {
      throw new IllegalArgumentException("session " + id + " has no turns");
    }
    if (!(startMs >= 0) || Double.isInfinite(startMs)) {
      throw new IllegalArgumentException("startMs must be finite and >= 0, got " + startMs);
    }
  }

  /**
   * The token prompt of turn {@code turn} (0-based): system ‖ user_0 ‖ answer_0 ‖ … ‖ user_turn.
   *
   * @param answers the answers of turns 0..turn-1 as the engine produced them (exactly {@code turn}
   *     of them)
   */
  public int[] promptTokens(int turn, List<int[]> answers) {
    checkTurn(turn, answers.size());
    List<int[]> users = new ArrayList<>(turn + 1);
    for (int k = 0; k <= turn; k++) {
      users.add(turns.get(k).userTokens());
    }
    return Prompts.tokens(systemTokens, users, answers);
  }

  /**
   * The OpenAI chat {@code messages} of turn {@code turn} (0-based); see {@link Prompts#messages}.
   *
   * @param answerTexts the answers of turns 0..turn-1 as text (exactly {@code turn} of them)
   */
  public List<Map<String, Object>> messages(int turn, List<String> answerTexts) {
    checkTurn(turn, answerTexts.size());
    List<String> users = new ArrayList<>(turn + 1);
    for (int k = 0; k <= turn; k++) {
      users.add(turns.get(k).userText());
    }
    return Prompts.messages(systemText, users, answerTexts);
  }

  private void checkTurn(int turn, int answers) {
    if (turn < 0 || turn >= turns.size()) {
      throw new IndexOutOfBoundsException(
          "turn " + turn + " of session " + id + " with " + turns.size() + " turns");
    }
    if (answers != turn) {
      throw new IllegalArgumentException(
          "turn " + turn + " needs the " + turn + " earlier answers, got " + answers);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Session s
        && id.equals(s.id)
        && Double.compare(startMs, s.startMs) == 0
        && Arrays.equals(systemTokens, s.systemTokens)
        && systemText.equals(s.systemText)
        && turns.equals(s.turns)
        && group.equals(s.group);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, startMs, Arrays.hashCode(systemTokens), systemText, turns, group);
  }

  @Override
  public String toString() {
    return "Session[id="
        + id
        + ", startMs="
        + startMs
        + ", systemTokens="
        + systemTokens.length
        + ", turns="
        + turns
        + ", group="
        + group
        + "]";
  }
}
