package io.infera.sim.workload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Assembles a turn's prompt from its pieces: as tokens (virtual time) or as chat messages. */
public final class Prompts {

  private Prompts() {}

  /**
   * {@code system ‖ users[0] ‖ answers[0] ‖ … ‖ users[n-1]}.
   *
   * @param users the user messages of turns 0..n-1, n ≥ 1
   * @param answers the answers of turns 0..n-2 (exactly n-1)
   */
  public static int[] tokens(int[] system, List<int[]> users, List<int[]> answers) {
    checkCounts(users.size(), answers.size());
    int length = system.length;
    for (int[] u : users) {
      length += u.length;
    }
    for (int[] a : answers) {
      length += a.length;
    }
    int[] out = new int[length];
    int at = append(out, 0, system);
    for (int k = 0; k < users.size(); k++) {
      at = append(out, at, users.get(k));
      if (k < answers.size()) {
        at = append(out, at, answers.get(k));
      }
    }
    return out;
  }

  /**
   * The OpenAI chat {@code messages} list: {@code {"role":"system"}} when {@code systemText} is not
   * empty, then alternating {@code user} and {@code assistant} messages ending with the last user
   * message. Each message is a mutable {@code {"role", "content"}} map, ready for {@code
   * Json.write}.
   *
   * @param userTexts the user messages of turns 0..n-1, n ≥ 1
   * @param answerTexts the answers of turns 0..n-2 (exactly n-1)
   */
  public static List<Map<String, Object>> messages(
      String systemText, List<String> userTexts, List<String> answerTexts) {
    checkCounts(userTexts.size(), answerTexts.size());
    List<Map<String, Object>> out = new ArrayList<>(2 * userTexts.size());
    if (!systemText.isEmpty()) {
      out.add(message("system", systemText));
    }
    for (int k = 0; k < userTexts.size(); k++) {
      out.add(message("user", userTexts.get(k)));
      if (k < answerTexts.size()) {
        out.add(message("assistant", answerTexts.get(k)));
      }
    }
    return out;
  }

  private static Map<String, Object> message(String role, String content) {
    Map<String, Object> m = new LinkedHashMap<>(4);
    m.put("role", role);
    m.put("content", content);
    return m;
  }

  private static void checkCounts(int users, int answers) {
    if (users < 1) {
      throw new IllegalArgumentException("a prompt needs at least one user message");
    }
    if (answers != users - 1) {
      throw new IllegalArgumentException(
          users + " user messages need " + (users - 1) + " answers, got " + answers);
    }
  }

  private static int append(int[] into, int at, int[] piece) {
    System.arraycopy(piece, 0, into, at, piece.length);
    return at + piece.length;
  }
}
