package io.infera.router.tokenize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Where a long text may be cut so that encoding the pieces gives the ids of the whole: before a
 * single space that has a letter on both sides ({@code "word| next"}), and where verified also
 * before punctuation right after a letter ({@code "文|，"}). Byte-level BPE pre-tokenizers (GPT-2,
 * Llama 3, Qwen) and Metaspace ones start a new pre-token there, so the cut changes nothing; a
 * tokenizer where it would (a normalizer that prepends, a post-processor that appends, an added
 * token that spans or absorbs the space) fails {@link #verify} at load and is then never cut. Pure
 * functions, thread-safe.
 */
final class ChunkBoundaries {

  private ChunkBoundaries() {}

  /** True when {@code i} is a cut point of {@code s}: a space with a letter before and after. */
  static boolean isBoundary(CharSequence s, int i) {
    if (i <= 0 || i + 1 >= s.length() || s.charAt(i) != ' ') {
      return false;
    }
    return Character.isLetter(Character.codePointBefore(s, i))
        && Character.isLetter(Character.codePointAt(s, i + 1));
  }

  /**
   * True when {@code i} is a cut point of the second kind: a punctuation mark right after a letter
   * ({@code "文|，"}, {@code "word|…"}), where byte-level regex pre-tokenizers end a letter run. This
   * is what lets CJK text, which has no spaces, be cut; the typographic apostrophe (contractions)
   * is left out. Used only where {@link #verify} passed with it and no added token holds such a
   * point ({@link #addedTokensAllowPunctuationCuts}).
   */
  static boolean isPunctuationBoundary(CharSequence s, int i) {
    if (i <= 0 || i >= s.length()) {
      return false;
    }
    char c = s.charAt(i);
    // Only marks from U+2000 on (general, CJK and fullwidth punctuation): ASCII ones such as '_'
    // and '|' sit inside special tokens like <|im_start|>, which must never be cut.
    if (c < '\u2000' || c == '\u2019' || !isPunctuation(c)) {
      return false;
    }
    return Character.isLetter(Character.codePointBefore(s, i));
  }

  private static boolean isPunctuation(char c) {
    return switch (Character.getType(c)) {
      case Character.CONNECTOR_PUNCTUATION,
          Character.DASH_PUNCTUATION,
          Character.START_PUNCTUATION,
          Character.END_PUNCTUATION,
          Character.INITIAL_QUOTE_PUNCTUATION,
          Character.FINAL_QUOTE_PUNCTUATION,
          Character.OTHER_PUNCTUATION ->
          true;
      default -> false;
    };
  }

  /** A cut point of either kind, the second only when {@code punctuation}. */
  static boolean isBoundary(CharSequence s, int i, boolean punctuation) {
    return isBoundary(s, i) || (punctuation && isPunctuationBoundary(s, i));
  }

  /**
   * Cut points (ascending, each in {@code (0, s.length())}) so every piece is at most {@code chunk}
   * chars where a boundary allows, and never more than {@code maxPiece}.
   *
   * @throws TokenizeBudgetException when a stretch without boundary is longer than {@code maxPiece}
   */
  static int[] cuts(String s, int chunk, int maxPiece) {
    return cuts(s, chunk, maxPiece, false);
  }

  /** As {@link #cuts(String, int, int)}, also at punctuation when {@code punctuation}. */
  static int[] cuts(String s, int chunk, int maxPiece, boolean punctuation) {
    int len = s.length();
    int[] out = new int[Math.max(4, len / Math.max(1, chunk) + 2)];
    int n = 0;
    int from = 0;
    while (len - from > chunk) {
      int b = -1;
      for (int i = from + chunk; i > from; i--) {
        if (isBoundary(s, i, punctuation)) {
          b = i;
          break;
        }
      }
      if (b < 0) {
        b = len;
        for (int i = from + chunk + 1; i < len; i++) {
          if (isBoundary(s, i, punctuation)) {
            b = i;
            break;
          }
        }
      }
      if (b - from > maxPiece) {
        throw new TokenizeBudgetException(
            TokenizeBudgetException.UNSPLITTABLE,
            "a stretch of "
                + (b - from)
                + " chars without a pre-token boundary (at most "
                + maxPiece
                + " go to the tokenizer at once)");
      }
      if (b == len) {
        break;
      }
      if (n == out.length) {
        out = Arrays.copyOf(out, n * 2);
      }
      out[n++] = b;
      from = b;
    }
    if (len - from > maxPiece) {
      throw new TokenizeBudgetException(
          TokenizeBudgetException.UNSPLITTABLE,
          "a stretch of " + (len - from) + " chars without a pre-token boundary");
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * False when an added token could straddle or absorb a cut: its content holds a boundary, or it
   * strips whitespace on a side where its content has a letter.
   */
  static boolean addedTokensAllowCuts(List<HfTokenizer.AddedToken> added) {
    for (HfTokenizer.AddedToken t : added) {
      String c = t.content();
      if (c.isEmpty()) {
        continue;
      }
      for (int i = 0; i < c.length(); i++) {
        if (c.charAt(i) == ' ') {
          return false;
        }
      }
      if (t.lstrip() && Character.isLetter(c.codePointAt(0))) {
        return false;
      }
      if (t.rstrip() && Character.isLetter(c.codePointBefore(c.length()))) {
        return false;
      }
    }
    return true;
  }

  /** False when an added token's content holds a punctuation cut point. */
  static boolean addedTokensAllowPunctuationCuts(List<HfTokenizer.AddedToken> added) {
    for (HfTokenizer.AddedToken t : added) {
      for (int i = 0; i < t.content().length(); i++) {
        if (isPunctuationBoundary(t.content(), i)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Texts whose every boundary is tried at load: spacing, scripts, digits, contractions. */
  static List<String> probes() {
    List<String> p = new ArrayList<>();
    p.add("Hello world, this is a test of the tokenizer");
    p.add("it's we're they've I'm you'll he'd SHE'S don't");
    p.add("a b c d e f  g   h\ti\nj \nk\n l\r\nm n");
    p.add("naïve café déjà vu Ærøskøbing straße İstanbul");
    p.add("число слово текст Ελληνικά λέξη עברית מילה عربي كلمة");
    p.add("中文 文本 日本語 テキスト 한국어 텍스트 ไทย ข้อความ");
    p.add("x1 y22 z333 word 4444 alpha beta5 gamma");
    p.add("emoji 🙂 here and there 👍🏽 ok ab");
    p.add("e\u0301 combining a\u0308 marks o\u0302 end");
    p.add("  leading and trailing spaces  ");
    p.add("CamelCase camelCase snake_case kebab-case dot.case");
    p.add("the quick brown fox jumps over the lazy dog ".repeat(8));
    p.add("中文，文本。日本語、テキスト！한국어？텍스트；(括弧)「引用」—破折号…省略");
    p.add("end.\nnext, line; (paren) [bracket] {brace} \"quoted\" «guillemets» a-b a_b a/b");
    p.add("word.\n\nword,\tword!  word?\r\nword:x");
    return p;
  }

  /**
   * True when cutting every probe at each boundary (two pieces) and at all boundaries at once
   * encodes to the same ids as the whole text.
   *
   * @param encode one native encode call: (text, add special tokens) to ids
   */
  static boolean verify(BiFunction<String, Boolean, int[]> encode, boolean special) {
    return verify(encode, special, false);
  }

  /**
   * As {@link #verify(BiFunction, boolean)}, cutting at punctuation too when {@code punctuation}.
   */
  static boolean verify(
      BiFunction<String, Boolean, int[]> encode, boolean special, boolean punctuation) {
    for (String text : probes()) {
      int[] whole = encode.apply(text, special);
      List<Integer> all = new ArrayList<>();
      for (int i = 0; i < text.length(); i++) {
        if (!isBoundary(text, i, punctuation)) {
          continue;
        }
        all.add(i);
        int[] joined =
            concat(
                encode.apply(text.substring(0, i), special),
                encode.apply(text.substring(i), false));
        if (!Arrays.equals(whole, joined)) {
          return false;
        }
      }
      int[] pieces = new int[0];
      int from = 0;
      for (int i = 0; i <= all.size(); i++) {
        int to = i < all.size() ? all.get(i) : text.length();
        pieces = concat(pieces, encode.apply(text.substring(from, to), special && from == 0));
        from = to;
      }
      if (!Arrays.equals(whole, pieces)) {
        return false;
      }
    }
    return true;
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
