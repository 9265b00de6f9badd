package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.jinja.ChatGoldens;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Cutting a text at {@link ChunkBoundaries} never changes a token: with Qwen3, hostile random texts
 * and every golden rendered chat encode, cut into pieces of any size, to the ids of one native call
 * on the whole text (with and without special tokens).
 */
class ChunkCutProperties {

  private static final String[] ATOMS = {
    "a",
    "b",
    "Z",
    "é",
    "ß",
    "中",
    "文",
    "ア",
    "한",
    "Ж",
    "ا",
    " ",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\n\n",
    "1",
    "42",
    ".",
    ",",
    "!",
    "'s",
    "'T",
    "-",
    "_",
    "🙂",
    "👍🏽",
    "e\u0301",
    "\u00a0",
    "\u3000",
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "\ud83d",
    "\udc00",
    "word",
    " the",
    "Hello"
  };

  @Provide
  Arbitrary<String> hostileText() {
    return Arbitraries.of(ATOMS).list().ofMinSize(0).ofMaxSize(120).map(l -> String.join("", l));
  }

  @Property(tries = 400)
  void cutEncodingEqualsWholeEncoding(
      @ForAll("hostileText") String text,
      @ForAll @IntRange(min = 1, max = 40) int chunk,
      @ForAll boolean special) {
    HfTokenizer t = TestTokenizers.qwen3().tokenizer();
    int[] whole = t.encodeWhole(text, special);
    assertThat(t.encode(text, special, Integer.MAX_VALUE, chunk)).isEqualTo(whole);
  }

  @Property(tries = 3)
  void everyGoldenChatEncodesTheSameCut(@ForAll long seed) {
    HfTokenizer t = TestTokenizers.qwen3().tokenizer();
    Random r = new Random(seed);
    List<String> texts = new ArrayList<>();
    for (ChatGoldens.Case c : ChatGoldens.cases()) {
      if (c.expected() != null && c.expected().length() > 8) {
        texts.add(c.expected());
      }
    }
    int cut = 0;
    for (String text : texts) {
      int chunk = 1 + r.nextInt(Math.max(1, text.length() / 2));
      int[] cuts = ChunkBoundaries.cuts(text, chunk, Integer.MAX_VALUE, t.cutsAtPunctuation());
      cut += cuts.length > 0 ? 1 : 0;
      assertThat(t.encode(text, false, Integer.MAX_VALUE, chunk))
          .as("ids of %s cut at %d", text, chunk)
          .isEqualTo(t.encodeWhole(text, false));
    }
    assertThat(texts).hasSizeGreaterThan(1000);
    assertThat(cut).as("texts that were really cut").isGreaterThan(500);
  }

  @Property(tries = 300)
  void cutsAreAscendingBoundariesAndPiecesRespectTheLimit(
      @ForAll("hostileText") String text,
      @ForAll @IntRange(min = 1, max = 30) int chunk,
      @ForAll @IntRange(min = 1, max = 200) int maxPiece,
      @ForAll boolean punctuation) {
    int[] cuts;
    try {
      cuts = ChunkBoundaries.cuts(text, chunk, maxPiece, punctuation);
    } catch (TokenizeBudgetException refused) {
      // refused only when some stretch between usable boundaries is really over the limit
      assertThat(longestUncuttable(text, chunk, punctuation)).isGreaterThan(maxPiece);
      return;
    }
    int from = 0;
    for (int c : cuts) {
      assertThat(c).isGreaterThan(from);
      assertThat(ChunkBoundaries.isBoundary(text, c, punctuation)).isTrue();
      assertThat(c - from).isLessThanOrEqualTo(maxPiece);
      from = c;
    }
    assertThat(text.length() - from).isLessThanOrEqualTo(maxPiece);
  }

  /** The longest piece the greedy cut leaves (recomputed without a limit). */
  private static int longestUncuttable(String text, int chunk, boolean punctuation) {
    int[] cuts = ChunkBoundaries.cuts(text, chunk, Integer.MAX_VALUE, punctuation);
    int longest = 0;
    int from = 0;
    for (int c : cuts) {
      longest = Math.max(longest, c - from);
      from = c;
    }
    return Math.max(longest, text.length() - from);
  }
}
