package io.infera.sim.bench;

import io.infera.sim.workload.Session;
import io.infera.sim.workload.Turn;
import java.util.ArrayList;
import java.util.List;

/**
 * One live session's progress: the turn it is at and what it has said so far — its token context
 * (completions: system, user and answer tokens) and its answers' text (chat). Used by one thread at
 * a time: the load generator hands it from turn to turn.
 */
final class Conversation {

  private final Session session;
  private final List<Integer> context = new ArrayList<>();
  private final List<String> answers = new ArrayList<>();
  private int turn;

  Conversation(Session session) {
    this.session = session;
    for (int t : session.systemTokens()) {
      context.add(t);
    }
  }

  Session session() {
    return session;
  }

  /** The current turn's index, 0-based. */
  int turn() {
    return turn;
  }

  /** The current turn. */
  Turn current() {
    return session.turns().get(turn);
  }

  /** Adds the current turn's user tokens to the context (once, before its request). */
  void ask() {
    for (int t : current().userTokens()) {
      context.add(t);
    }
  }

  /** The token context: what a completions request of the current turn sends. */
  int[] prompt() {
    return context.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The answers' text so far, in order. */
  List<String> answers() {
    return List.copyOf(answers);
  }

  /** Records a chat answer. */
  void answered(String text) {
    answers.add(text);
  }

  /** Records a completions answer as the tokens it adds to the context. */
  void answered(int[] tokens) {
    for (int t : tokens) {
      context.add(t);
    }
  }

  /** Moves to the next turn; false when the session has no more. */
  boolean next() {
    turn++;
    return turn < session.turns().size();
  }

  /** Turns after the current one. */
  int remaining() {
    return session.turns().size() - turn - 1;
  }
}
