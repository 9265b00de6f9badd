package io.infera.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.CharRange;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.StringLength;

class KubeletExpansionProperties {

  /** Without a single {@code $}, nothing changes. */
  @Property
  void textWithoutDollarIsKept(@ForAll String s) {
    String plain = s.replace("$", "");
    assertThat(KubeletExpansion.expand(plain, Map.of("A", "x"))).isEqualTo(plain);
  }

  /** With no variables defined only {@code $$} changes, so the output is never longer. */
  @Property
  void noVariablesOnlyUnescapes(
      @ForAll @StringLength(max = 40) @Chars({'$', '(', ')', 'A', 'b'}) String s) {
    String out = KubeletExpansion.expand(s, Map.of());
    assertThat(out.length()).isLessThanOrEqualTo(s.length());
    assertThat(out.replace("$", "")).isEqualTo(s.replace("$", ""));
  }

  /** A reference to a defined variable, anywhere in plain text, is replaced by its value. */
  @Property
  void definedReferenceIsReplaced(
      @ForAll @StringLength(max = 20) @CharRange(from = 'a', to = 'z') String before,
      @ForAll @StringLength(max = 20) @CharRange(from = 'a', to = 'z') String after,
      @ForAll @StringLength(max = 20) String value) {
    String out = KubeletExpansion.expand(before + "$(V)" + after, Map.of("V", value));
    assertThat(out).isEqualTo(before + value + after);
  }
}
