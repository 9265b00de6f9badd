package io.infera.sim.engine;

import io.infera.router.tokenize.PromptTokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The simulated engine's answers: {@code n} words from a fixed English vocabulary, each of which
 * the model's tokenizer encodes (with its leading space) to exactly one token. The text of an
 * answer therefore re-encodes to exactly the token ids the engine streamed, so a client that puts
 * the answer into its next chat turn sends the tokens a real engine would have cached.
 *
 * <p>Answers are deterministic per request id. Immutable and thread-safe.
 */
final class AnswerVocabulary {

  /** Fewer usable words than this and the tokenizer is considered unsuitable. */
  static final int MIN_WORDS = 16;

  private static final String[] CANDIDATES =
      ("the of and to in is that it was for on are as with his they at be this from "
              + "have or by one had not but what all were when we there can an your which their "
              + "said if do will each about how up out them then she many some so these would "
              + "other into has more her two like him see time could no make than first been its "
              + "who now people my made over did down only way find use may water long little "
              + "very after words called just where most know get through back much go good new "
              + "write our me man too any day same right look think also around another came "
              + "come work three word must because does part even place well such here take why "
              + "things help put years different away again off went old number great tell men "
              + "say small every found still between name should home big give air line set own "
              + "under read last never us left end along while might next sound below saw "
              + "something thought both few those always looked show large often together asked "
              + "house world going want school important until form food keep children feet land "
              + "side without boy once animals life enough took sometimes four head above kind "
              + "began almost live page got earth need far hand high year mother light parts "
              + "country father let night following picture being study second eyes soon times "
              + "story boys since white days ever paper hard near sentence better best across "
              + "during today others however sure means knew try told young miles sun ways thing "
              + "whole hear example heard several change answer room sea against top turned "
              + "learn point city play toward five using himself usually model cache block")
          .split(" ");

  /** One answer: token ids and the text piece of each (the piece decodes from its id). */
  record Answer(int[] ids, String[] pieces) {

    int length() {
      return ids.length;
    }

    /** The text of the first {@code n} tokens. */
    String text(int n) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < Math.min(n, pieces.length); i++) {
        sb.append(pieces[i]);
      }
      return sb.toString();
    }
  }

  private final String[] pieces;
  private final int[] ids;

  private AnswerVocabulary(String[] pieces, int[] ids) {
    this.pieces = pieces;
    this.ids = ids;
  }

  /**
   * Keeps the candidate words that encode to one token, and checks that they still do when
   * concatenated (no merges across words).
   *
   * @throws IllegalArgumentException when fewer than {@value #MIN_WORDS} words qualify
   */
  static AnswerVocabulary build(PromptTokenizer tokenizer) {
    List<String> keptPieces = new ArrayList<>();
    List<Integer> keptIds = new ArrayList<>();
    for (String w : CANDIDATES) {
      String piece = " " + w;
      int[] enc = tokenizer.encodeRendered(piece);
      if (enc.length == 1 && !keptIds.contains(enc[0])) {
        keptPieces.add(piece);
        keptIds.add(enc[0]);
      }
    }
    int[] ids = keptIds.stream().mapToInt(Integer::intValue).toArray();
    String[] pieces = keptPieces.toArray(new String[0]);
    if (ids.length >= MIN_WORDS
        && !Arrays.equals(tokenizer.encodeRendered(String.join("", pieces)), ids)) {
      throw new IllegalArgumentException(
          "the tokenizer merges words across spaces; simulated answers would not round-trip");
    }
    if (ids.length < MIN_WORDS) {
      throw new IllegalArgumentException(
          "the tokenizer encodes only "
              + ids.length
              + " of "
              + CANDIDATES.length
              + " common English words to a single token (need "
              + MIN_WORDS
              + ")");
    }
    return new AnswerVocabulary(pieces, ids);
  }

  /** Usable words. */
  int size() {
    return ids.length;
  }

  /** The answer of {@code tokens} tokens for a request, deterministic in its id. */
  Answer answer(String requestId, int tokens) {
    SplittableRandom rnd = new SplittableRandom(seed(requestId));
    int[] outIds = new int[tokens];
    String[] outPieces = new String[tokens];
    for (int i = 0; i < tokens; i++) {
      int w = rnd.nextInt(ids.length);
      outIds[i] = ids[w];
      outPieces[i] = pieces[w];
    }
    return new Answer(outIds, outPieces);
  }

  private static long seed(String requestId) {
    long h = 0x9E3779B97F4A7C15L;
    for (int i = 0; i < requestId.length(); i++) {
      h = (h ^ requestId.charAt(i)) * 0x100000001B3L;
    }
    return h;
  }
}
