package io.infera.operator.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h} or ISO-8601 ({@code PT30S}). */
public final class DurationConverter implements ITypeConverter<Duration> {

  private static final Pattern SIMPLE = Pattern.compile("^([0-9]{1,9})(ms|s|m|h)$");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * @throws TypeConversionException naming the expected forms
   */
  public static Duration parse(String value) {
    String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
    Matcher m = SIMPLE.matcher(v);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    }
    if (v.startsWith("pt") || v.startsWith("p")) {
      try {
        return Duration.parse(v.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        // fall through to the common message
      }
    }
    throw new TypeConversionException(
        "expected a duration such as 500ms, 30s, 2m, 1h or PT30S, got '" + value + "'");
  }
}
