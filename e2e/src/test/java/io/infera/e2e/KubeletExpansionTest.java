package io.infera.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KubeletExpansionTest {

  private static final Map<String, String> VARS = Map.of("POD_NAME", "w-0", "EMPTY", "", "D", "$");

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "$(POD_NAME)|w-0",
        "--worker-id=$(POD_NAME)/x|--worker-id=w-0/x",
        "$(UNKNOWN)|$(UNKNOWN)",
        "$$(POD_NAME)|$(POD_NAME)",
        "$$$(POD_NAME)|$w-0",
        "a$b|a$b",
        "trailing$|trailing$",
        "$(POD_NAME|$(POD_NAME",
        "$()|$()",
        "$(EMPTY)x|x",
        "$(D)(POD_NAME)|$(POD_NAME)",
        "((($(POD_NAME))))|(((w-0)))",
        "''|''",
      })
  void expandsAsTheKubelet(String input, String expected) {
    assertThat(KubeletExpansion.expand(input, VARS)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {"$(\u0000)", "$($($($(", "))))$$$$((((", "$(a)(b)$(c", "\uD800$(POD_NAME)\uDFFF"})
  void hostileInputNeverThrows(String input) {
    assertThat(KubeletExpansion.expand(input, VARS)).isNotNull();
  }
}
