package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.jinja.ChatGoldens;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Prefix reuse never changes a token: over the whole golden corpus (every rendered text), in a
 * random order, each text first seen as a random earlier "turn" (a prefix cut at a random
 * position), the ids with reuse equal a fresh encode — and reuse really happens.
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
      }
    }
    assertThat(texts).hasSizeGreaterThan(1000);
    assertThat(reusedTexts).as("texts that reused a cached prefix").isGreaterThan(100);
  }
}
