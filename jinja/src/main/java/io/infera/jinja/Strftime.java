package io.infera.jinja;

import java.time.LocalDateTime;
import java.time.format.TextStyle;
import java.util.Locale;

/** Python's {@code datetime.strftime} in the C locale, with glibc's {@code %-d} style flags. */
final class Strftime {

  private Strftime() {}

  static String format(String fmt, LocalDateTime t) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < fmt.length(); i++) {
      char c = fmt.charAt(i);
      if (c != '%' || i + 1 >= fmt.length()) {
        sb.append(c);
        continue;
      }
      char d = fmt.charAt(++i);
      boolean noPad = false;
      if (d == '-' && i + 1 < fmt.length()) {
        noPad = true;
        d = fmt.charAt(++i);
      }
      switch (d) {
        case 'Y' -> sb.append(t.getYear());
        case 'y' -> sb.append(pad(t.getYear() % 100, 2, noPad));
        case 'm' -> sb.append(pad(t.getMonthValue(), 2, noPad));
        case 'd' -> sb.append(pad(t.getDayOfMonth(), 2, noPad));
        case 'e' ->
            sb.append(
                noPad
                    ? Integer.toString(t.getDayOfMonth())
                    : String.format("%2d", t.getDayOfMonth()));
        case 'H' -> sb.append(pad(t.getHour(), 2, noPad));
        case 'I' -> sb.append(pad(t.getHour() % 12 == 0 ? 12 : t.getHour() % 12, 2, noPad));
        case 'M' -> sb.append(pad(t.getMinute(), 2, noPad));
        case 'S' -> sb.append(pad(t.getSecond(), 2, noPad));
        case 'f' -> sb.append(String.format("%06d", t.getNano() / 1000));
        case 'j' -> sb.append(pad(t.getDayOfYear(), 3, noPad));
        case 'p' -> sb.append(t.getHour() < 12 ? "AM" : "PM");
        case 'b', 'h' -> sb.append(t.getMonth().getDisplayName(TextStyle.SHORT, Locale.US));
        case 'B' -> sb.append(t.getMonth().getDisplayName(TextStyle.FULL, Locale.US));
        case 'a' -> sb.append(t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.US));
        case 'A' -> sb.append(t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.US));
        case 'w' -> sb.append(t.getDayOfWeek().getValue() % 7);
        case 'U' -> {
          int wday = t.getDayOfWeek().getValue() % 7;
          sb.append(pad((t.getDayOfYear() - 1 + 7 - wday) / 7, 2, noPad));
        }
        case 'W' -> {
          int wday = (t.getDayOfWeek().getValue() + 6) % 7;
          sb.append(pad((t.getDayOfYear() - 1 + 7 - wday) / 7, 2, noPad));
        }
        case 'u' -> sb.append(t.getDayOfWeek().getValue());
        case 'D' -> sb.append(format("%m/%d/%y", t));
        case 'F' -> sb.append(format("%Y-%m-%d", t));
        case 'T' -> sb.append(format("%H:%M:%S", t));
        case 'R' -> sb.append(format("%H:%M", t));
        case 'c' -> sb.append(format("%a %b %e %H:%M:%S %Y", t));
        case 'x' -> sb.append(format("%m/%d/%y", t));
        case 'X' -> sb.append(format("%H:%M:%S", t));
        case 'Z', 'z' -> {}
        case 'n' -> sb.append('\n');
        case 't' -> sb.append('\t');
        case '%' -> sb.append('%');
        default -> sb.append('%').append(noPad ? "-" : "").append(d);
      }
    }
    return sb.toString();
  }

  private static String pad(int v, int width, boolean noPad) {
    String s = Integer.toString(v);
    return noPad || s.length() >= width ? s : "0".repeat(width - s.length()) + s;
  }
}
