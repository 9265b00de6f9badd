package io.infera.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

class DurationConverterTest {

  @ParameterizedTest
  @CsvSource({"500ms,PT0.5S", "30s,PT30S", "2m,PT2M", "1h,PT1H", "' 5S ',PT5S", "PT1M30S,PT1M30S"})
  void parses(String text, String iso) {
    assertThat(DurationConverter.parse(text)).isEqualTo(Duration.parse(iso));
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(
      strings = {"10", "10x", "s", "-5s", "1.5s", "10 s", "PTX", "P", "9999999999s", "30sec"})
  void refusesWithTheExpectedForms(String text) {
    assertThatThrownBy(() -> DurationConverter.parse(text))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("expected a duration such as 500ms, 30s, 2m, 1h or PT30S");
  }
}
