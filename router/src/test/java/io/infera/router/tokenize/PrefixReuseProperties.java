package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.jinja.ChatGoldens;
import io.infera.router.kv.BlockHasher;
import io.infera.router.kv.ChainMemo;
import io.infera.router.kv.RequestHasher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Prefix reuse never changes a token: over the whole golden corpus (every rendered text), in a
 * random order, each text first seen as a random earlier "turn" (a prefix cut at a random
 * position), the ids with reuse equal a fresh encode — and reuse really happens. Nor a block hash:
 * the chains hashed with the reused prompts' remembered chains equal a fresh hash.
 */
class PrefixReuseProperties {

  private static final List<String> TEXTS = new ArrayList<>();

  static {
    for (ChatGoldens.Case c : ChatGoldens.cases()) {
      if (c.expected() != null) {
        TEXTS.add(c.expected());
      }
    }
  }

  @Property(tries = 5)
  void cachedAndUncachedTokenizationAreIdentical(@ForAll long seed) {
    PromptTokenizer q = TestTokenizers.qwen3();
    Random r = new Random(seed);
    ChainMemo memo = new ChainMemo();
    RequestHasher hasher = new RequestHasher(4, memo);
    BlockHasher cold = new BlockHasher(4);
    long parent = r.nextBoolean() ? 0 : BlockHasher.firstParent("lora-" + seed, null);
    List<String> texts = new ArrayList<>(TEXTS);
    Collections.shuffle(texts, r);
    long reusedTexts = 0;
    for (String text : texts) {
      if (!text.isEmpty() && r.nextBoolean()) {
        String earlier = text.substring(0, r.nextInt(text.length()));
        assertThat(q.encodeRenderedText(earlier).ids()).isEqualTo(q.encodeRendered(earlier));
      }
      Tokenized t = q.encodeRenderedText(text);
      assertThat(t.ids()).as("ids of %s", text).isEqualTo(q.encodeRendered(text));
      if (t.reusedTokens() > 0) {
        reusedTexts++;
        assertThat(t.reusedFrom()).isNotNull();
        assertThat(Arrays.copyOf(t.reusedFrom(), t.reusedTokens()))
            .isEqualTo(Arrays.copyOf(t.ids(), t.reusedTokens()));
      } else {
        assertThat(t.reusedFrom()).isNull();
      }
      long[] chain =
          hasher.hash(t.ids(), parent, new int[0], t.reusedFrom(), t.reusedTokens()).base();
      assertThat(chain).isEqualTo(cold.requestHashes(t.ids(), parent));
    }
    assertThat(memo.reusedBlocks()).as("blocks taken from remembered chains").isGreaterThan(1000);
    assertThat(texts).hasSizeGreaterThan(1000);
    assertThat(reusedTexts).as("texts that reused a cached prefix").isGreaterThan(100);
  }
}
