package io.infera.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.StringLength;

/** Any input gives a view or MalformedStatus: never another exception. */
class RouterStatusFuzzProperties {

  @Property(tries = 2000)
  void arbitraryTextNeverThrowsAnythingElse(@ForAll @StringLength(max = 300) String body) {
    parseOrMalformed(body);
  }

  @Property(tries = 3000)
  void mutatedStatusDocumentsNeverThrowAnythingElse(@ForAll("mutations") String body) {
    RouterView v = parseOrMalformed(body);
    if (v != null) {
      assertThat(v.workers()).isNotNegative();
      assertThat(v.indexedBlocks()).isNotNegative();
      assertThat(v.degradedSources()).isLessThanOrEqualTo(v.sources());
      if (v.hitRatio() != null) {
        assertThat(v.hitRatio()).isBetween(0.0, 1.0);
      }
    }
  }

  @Provide
  Arbitrary<String> mutations() {
    String base = RouterStatusParserTest.ROUTER_STATUS;
    Arbitrary<Integer> at = Arbitraries.integers().between(0, base.length() - 1);
    Arbitrary<String> junk =
        Arbitraries.of("", "{", "}", "[", "]", ",", ":", "\"", "null", "-1", "1e999", "true", "x");
    return Arbitraries.oneOf(
        // delete a span
        at.flatMap(
            i ->
                Arbitraries.integers()
                    .between(1, 40)
                    .map(
                        n ->
                            base.substring(0, i) + base.substring(Math.min(base.length(), i + n)))),
        // insert junk
        at.flatMap(i -> junk.map(j -> base.substring(0, i) + j + base.substring(i))),
        // truncate
        at.map(i -> base.substring(0, i)));
  }

  private static RouterView parseOrMalformed(String body) {
    try {
      return RouterStatusParser.parse(body);
    } catch (RouterStatusParser.MalformedStatus e) {
      assertThat(e.getMessage()).isNotBlank();
      return null;
    }
  }
}
