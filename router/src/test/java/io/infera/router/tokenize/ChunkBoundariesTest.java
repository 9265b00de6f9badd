package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChunkBoundariesTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "ab cd|2|true",
        "ab  cd|2|false",
        "ab  cd|3|false",
        "ab\tcd|2|false",
        "a1 cd|2|false",
        "ab 1d|2|false",
        "ab cd|0|false",
        "ab cd|1|false",
        "ab c|3|false",
        "\" ab\"|0|false",
        "ab c|2|true",
        "é ü|1|true",
        "中 文|1|true",
        "ab. cd|3|false"
      })
  void aBoundaryIsOneSpaceBetweenLetters(String text, int at, boolean boundary) {
    assertThat(ChunkBoundaries.isBoundary(text, at)).isEqualTo(boundary);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      value = {
        "中文，文本|2|true",
        "中文。|2|true",
        "word.|4|false",
        "word,x|4|false",
        "a_b|1|false",
        "a-b|1|false",
        "word…|4|true",
        "文—x|1|true",
        "文«x|1|false",
        "it's|2|false",
        "it’s|2|false",
        "3.14|1|false",
        "a..|2|false",
        "é.|2|false",
        "ab+c|2|false",
        "ab c|2|true",
        ".a|0|false"
      })
  void aPunctuationBoundaryIsAMarkRightAfterALetter(String text, int at, boolean boundary) {
    assertThat(ChunkBoundaries.isBoundary(text, at, true)).isEqualTo(boundary);
    assertThat(ChunkBoundaries.isBoundary(text, at, false))
        .isEqualTo(ChunkBoundaries.isBoundary(text, at));
  }

  @Test
  void anAddedTokenHoldingAPunctuationCutPointTurnsThoseCutsOff() {
    HfTokenizer.AddedToken cjk =
        new HfTokenizer.AddedToken(9, "<文，>", true, false, false, false, false);
    HfTokenizer.AddedToken plain =
        new HfTokenizer.AddedToken(1, "<|im_start|>", true, false, false, false, false);
    assertThat(ChunkBoundaries.addedTokensAllowPunctuationCuts(List.of(plain))).isTrue();
    assertThat(ChunkBoundaries.addedTokensAllowPunctuationCuts(List.of(plain, cjk))).isFalse();
  }

  @Test
  void cjkTextIsCutAtItsPunctuationWithTheSameTokens() {
    HfTokenizer t = TestTokenizers.qwen3().tokenizer();
    assertThat(t.cutsAtPunctuation()).isTrue();
    String cjk = "中文文本，日本語のテキスト。한국어 텍스트！".repeat(40);
    assertThat(t.encode(cjk, false, 64, 32)).isEqualTo(t.encodeWhole(cjk, false));
    assertThatThrownBy(() -> t.encode("中".repeat(65), false, 64, 32))
        .isInstanceOf(TokenizeBudgetException.class);
  }

  @Test
  void aBoundaryAfterASupplementaryLetterIsFound() {
    String s = "\uD835\uDC00 \uD835\uDC01"; // MATHEMATICAL BOLD CAPITAL A, space, B
    assertThat(ChunkBoundaries.isBoundary(s, 2)).isTrue();
  }

  @Test
  void cutsEndAtBoundariesAndKeepPiecesWithinTheChunkWherePossible() {
    String s = "aaaa bbbb cccc dddd eeee";
    int[] cuts = ChunkBoundaries.cuts(s, 10, 100);
    assertThat(cuts).containsExactly(9, 19);
    for (int c : cuts) {
      assertThat(ChunkBoundaries.isBoundary(s, c)).isTrue();
    }
  }

  @Test
  void aStretchOfExactlyMaxPieceIsKeptAndOneMoreIsRefused() {
    String atLimit = "x".repeat(50) + " " + "y".repeat(49);
    // the first stretch is 50 chars, the rest 50 (space included): both at the limit
    assertThat(ChunkBoundaries.cuts(atLimit, 10, 50)).containsExactly(50);
    String over = "x".repeat(51) + " " + "y".repeat(10);
    assertThatThrownBy(() -> ChunkBoundaries.cuts(over, 10, 50))
        .isInstanceOfSatisfying(
            TokenizeBudgetException.class,
            e -> assertThat(e.reason()).isEqualTo(TokenizeBudgetException.UNSPLITTABLE));
    String overAtEnd = "x".repeat(10) + " " + "y".repeat(50);
    assertThatThrownBy(() -> ChunkBoundaries.cuts(overAtEnd, 10, 50))
        .isInstanceOf(TokenizeBudgetException.class);
    assertThat(ChunkBoundaries.cuts("x".repeat(10) + " " + "y".repeat(49), 10, 50))
        .containsExactly(10);
  }

  @Test
  void hostileShapesWithoutBoundariesAreRefusedPastTheLimit() {
    for (String s :
        List.of(
            "a".repeat(5000),
            " ".repeat(5000),
            "\n".repeat(5000),
            "中".repeat(5000),
            "7".repeat(5000),
            "a ".repeat(2500),
            "🙂".repeat(2500))) {
      boolean hasBoundary = false;
      for (int i = 0; i < s.length(); i++) {
        hasBoundary |= ChunkBoundaries.isBoundary(s, i);
      }
      if (hasBoundary) {
        assertThat(ChunkBoundaries.cuts(s, 64, 128)).isNotEmpty();
      } else {
        assertThatThrownBy(() -> ChunkBoundaries.cuts(s, 64, 128))
            .isInstanceOf(TokenizeBudgetException.class);
      }
    }
  }

  @Test
  void addedTokensThatCouldStraddleOrAbsorbACutTurnCuttingOff() {
    HfTokenizer.AddedToken plain =
        new HfTokenizer.AddedToken(1, "<|im_start|>", true, false, false, false, false);
    HfTokenizer.AddedToken spaced =
        new HfTokenizer.AddedToken(2, "hello world", false, false, false, false, true);
    HfTokenizer.AddedToken lstripLetter =
        new HfTokenizer.AddedToken(3, "mask", true, true, false, false, false);
    HfTokenizer.AddedToken rstripLetter =
        new HfTokenizer.AddedToken(4, "<x>y", true, false, true, false, false);
    HfTokenizer.AddedToken lstripSymbol =
        new HfTokenizer.AddedToken(5, "<mask>", true, true, true, false, false);
    assertThat(ChunkBoundaries.addedTokensAllowCuts(List.of(plain, lstripSymbol))).isTrue();
    assertThat(ChunkBoundaries.addedTokensAllowCuts(List.of(plain, spaced))).isFalse();
    assertThat(ChunkBoundaries.addedTokensAllowCuts(List.of(lstripLetter))).isFalse();
    assertThat(ChunkBoundaries.addedTokensAllowCuts(List.of(rstripLetter))).isFalse();
  }

  @Test
  void qwen3IsVerifiedCuttable() {
    HfTokenizer t = TestTokenizers.qwen3().tokenizer();
    assertThat(t.cutsPlain()).isTrue();
    assertThat(t.cutsWithSpecial()).isTrue();
  }

  /**
   * A Llama-2-style tokenizer (a normalizer that prepends "▁" and no pre-tokenizer): a cut would
   * add a "▁", so verification turns cutting off, and a long text is then refused whole instead.
   */
  @Test
  void aTokenizerWhereCutsChangeTokensIsNeverCut() throws Exception {
    String json =
        """
        {"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
         "normalizer":{"type":"Sequence","normalizers":[
           {"type":"Prepend","prepend":"\u2581"},
           {"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]},
         "pre_tokenizer":null,"post_processor":null,"decoder":null,
         "model":{"type":"BPE","dropout":null,"unk_token":"<unk>","continuing_subword_prefix":null,
           "end_of_word_suffix":null,"fuse_unk":true,"byte_fallback":false,"ignore_merges":false,
           "vocab":{"<unk>":0,"\u2581":1,"a":2,"b":3,"c":4,"\u2581a":5,"\u2581b":6},
           "merges":[["\u2581","a"],["\u2581","b"]]}}
        """;
    try (HfTokenizer t = HfTokenizer.load(json.getBytes(StandardCharsets.UTF_8), "llama-like")) {
      assertThat(t.cutsPlain()).isFalse();
      String text = "ab ".repeat(40).trim(); // 119 chars
      // within the piece limit: one call, whatever the chunk size
      assertThat(t.encode(text, false, 200, 8)).isEqualTo(t.encodeWhole(text, false));
      assertThatThrownBy(() -> t.encode(text, false, 100, 8))
          .isInstanceOfSatisfying(
              TokenizeBudgetException.class,
              e -> assertThat(e.reason()).isEqualTo(TokenizeBudgetException.UNSPLITTABLE));
    }
  }
}
