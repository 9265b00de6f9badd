package io.infera.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Python {@code str} behaviour on Java strings: code-point indexing and the str methods. */
final class PyString {

  private PyString() {}

  /** The string's code points, each as a one-code-point string (Python iteration). */
  static List<Object> chars(String s) {
    Meter m = Meter.current();
    m.items(s.length());
    m.allocate(Meter.times(s.length(), Meter.STRING_UNITS));
    List<Object> out = new ArrayList<>(s.length());
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      int n = Character.charCount(cp);
      out.add(s.substring(i, i + n));
      i += n;
    }
    return out;
  }

  /** Code-point order (Python), not UTF-16 order. */
  static int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int x = a.codePointAt(i);
      int y = b.codePointAt(j);
      if (x != y) {
        return Integer.compare(x, y);
      }
      i += Character.charCount(x);
      j += Character.charCount(y);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  static void repr(String s, StringBuilder sb) {
    char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
    sb.append(quote);
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      i += Character.charCount(c);
      if (c == quote || c == '\\') {
        sb.append('\\').appendCodePoint(c);
      } else if (c == '\t') {
        sb.append("\\t");
      } else if (c == '\n') {
        sb.append("\\n");
      } else if (c == '\r') {
        sb.append("\\r");
      } else if (c < 0x20 || c == 0x7f) {
        sb.append(String.format("\\x%02x", c));
      } else if (c < 0x7f || isPrintable(c)) {
        sb.appendCodePoint(c);
      } else if (c <= 0xff) {
        sb.append(String.format("\\x%02x", c));
      } else if (c <= 0xffff) {
        sb.append(String.format("\\u%04x", c));
      } else {
        sb.append(String.format("\\U%08x", c));
      }
    }
    sb.append(quote);
  }

  /** Python's {@code str.isprintable} for one code point. */
  static boolean isPrintable(int c) {
    if (c == ' ') {
      return true;
    }
    return switch (Character.getType(c)) {
      case Character.CONTROL,
          Character.FORMAT,
          Character.SURROGATE,
          Character.PRIVATE_USE,
          Character.UNASSIGNED,
          Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR,
          Character.SPACE_SEPARATOR ->
          false;
      default -> true;
    };
  }

  static String upper(String s) {
    return s.toUpperCase(Locale.ROOT);
  }

  static String lower(String s) {
    return s.toLowerCase(Locale.ROOT);
  }

  static boolean isCased(int c) {
    return Character.isUpperCase(c) || Character.isLowerCase(c) || Character.isTitleCase(c);
  }

  /** Python's {@code str.title()}. */
  static String title(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    boolean prevCased = false;
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      i += Character.charCount(c);
      if (prevCased) {
        sb.append(new String(Character.toChars(c)).toLowerCase(Locale.ROOT));
      } else {
        sb.appendCodePoint(Character.toTitleCase(c));
      }
      prevCased = isCased(c);
    }
    return sb.toString();
  }

  /** Python's {@code str.capitalize()}. */
  static String capitalize(String s) {
    if (s.isEmpty()) {
      return s;
    }
    int c = s.codePointAt(0);
    int n = Character.charCount(c);
    return new String(Character.toChars(Character.toTitleCase(c))) + lower(s.substring(n));
  }

  static String swapcase(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      i += Character.charCount(c);
      String ch = new String(Character.toChars(c));
      sb.append(
          Character.isUpperCase(c)
              ? ch.toLowerCase(Locale.ROOT)
              : Character.isLowerCase(c) ? ch.toUpperCase(Locale.ROOT) : ch);
    }
    return sb.toString();
  }

  /** strip/lstrip/rstrip: whitespace (chars == null) or any of {@code chars}. */
  static String strip(String s, String chars, boolean left, boolean right) {
    int start = 0;
    int end = s.length();
    if (left) {
      while (start < end) {
        int c = s.codePointAt(start);
        if (!stripped(c, chars)) {
          break;
        }
        start += Character.charCount(c);
      }
    }
    if (right) {
      while (end > start) {
        int c = s.codePointBefore(end);
        if (!stripped(c, chars)) {
          break;
        }
        end -= Character.charCount(c);
      }
    }
    return s.substring(start, end);
  }

  private static boolean stripped(int c, String chars) {
    return chars == null ? Py.isSpace(c) : chars.indexOf(new String(Character.toChars(c))) >= 0;
  }

  /** Before a split: at most one piece per character, the pieces hold at most its characters. */
  private static void splitting(String s) {
    Meter m = Meter.current();
    m.items(s.length() + 1L);
    m.allocate(s.length());
  }

  /** Python's {@code str.split(sep, maxsplit)}; sep null splits on whitespace runs. */
  static List<Object> split(String s, String sep, long maxsplit) {
    splitting(s);
    List<Object> out = new ArrayList<>();
    if (sep == null) {
      int i = 0;
      int n = s.length();
      while (true) {
        while (i < n && Py.isSpace(s.charAt(i))) {
          i++;
        }
        if (i >= n) {
          break;
        }
        if (maxsplit >= 0 && out.size() >= maxsplit) {
          out.add(s.substring(i));
          break;
        }
        int j = i;
        while (j < n && !Py.isSpace(s.charAt(j))) {
          j++;
        }
        out.add(s.substring(i, j));
        i = j;
      }
      return out;
    }
    if (sep.isEmpty()) {
      throw TemplateException.runtime("empty separator");
    }
    int i = 0;
    while (maxsplit < 0 || out.size() < maxsplit) {
      int j = s.indexOf(sep, i);
      if (j < 0) {
        break;
      }
      out.add(s.substring(i, j));
      i = j + sep.length();
    }
    out.add(s.substring(i));
    return out;
  }

  /** Python's {@code str.rsplit(sep, maxsplit)}. */
  static List<Object> rsplit(String s, String sep, long maxsplit) {
    if (maxsplit < 0) {
      return split(s, sep, -1);
    }
    splitting(s);
    List<Object> out = new ArrayList<>();
    if (sep == null) {
      int j = s.length();
      while (true) {
        while (j > 0 && Py.isSpace(s.charAt(j - 1))) {
          j--;
        }
        if (j <= 0) {
          break;
        }
        if (out.size() >= maxsplit) {
          out.add(0, s.substring(0, j));
          break;
        }
        int i = j;
        while (i > 0 && !Py.isSpace(s.charAt(i - 1))) {
          i--;
        }
        out.add(0, s.substring(i, j));
        j = i;
      }
      return out;
    }
    if (sep.isEmpty()) {
      throw TemplateException.runtime("empty separator");
    }
    int end = s.length();
    while (out.size() < maxsplit) {
      int j = s.lastIndexOf(sep, end - sep.length());
      if (j < 0) {
        break;
      }
      out.add(0, s.substring(j + sep.length(), end));
      end = j;
    }
    out.add(0, s.substring(0, end));
    return out;
  }

  /** Python's {@code str.splitlines(keepends)}. */
  static List<Object> splitlines(String s, boolean keepends) {
    splitting(s);
    List<Object> out = new ArrayList<>();
    int i = 0;
    int start = 0;
    int n = s.length();
    while (i < n) {
      char c = s.charAt(i);
      int eol = -1;
      if (c == '\r' && i + 1 < n && s.charAt(i + 1) == '\n') {
        eol = 2;
      } else if (c == '\n'
          || c == '\r'
          || c == 0x0b
          || c == 0x0c
          || c == 0x1c
          || c == 0x1d
          || c == 0x1e
          || c == 0x85
          || c == 0x2028
          || c == 0x2029) {
        eol = 1;
      }
      if (eol > 0) {
        out.add(s.substring(start, keepends ? i + eol : i));
        i += eol;
        start = i;
      } else {
        i++;
      }
    }
    if (start < n) {
      out.add(s.substring(start));
    }
    return out;
  }

  /** Python's {@code str.replace(old, new, count)}. */
  static String replace(String s, String old, String with, long count) {
    // The result's size first (a scan, no allocation): 'x'.replace('', big) multiplies.
    long n = count(s, old);
    if (count >= 0) {
      n = Math.min(n, count);
    }
    Meter m = Meter.current();
    m.steps(s.length() / 16);
    long grown = Meter.times(n, with.length());
    m.value(grown < 0 ? -1 : s.length() + grown - n * old.length());
    if (count < 0) {
      if (old.isEmpty()) {
        StringBuilder sb = new StringBuilder(with);
        for (Object ch : chars(s)) {
          sb.append((String) ch).append(with);
        }
        return sb.toString();
      }
      return s.replace(old, with);
    }
    StringBuilder sb = new StringBuilder();
    int i = 0;
    long done = 0;
    if (old.isEmpty()) {
      List<Object> cs = chars(s);
      for (Object ch : cs) {
        if (done < count) {
          sb.append(with);
          done++;
        }
        sb.append((String) ch);
      }
      if (done < count) {
        sb.append(with);
      }
      return sb.toString();
    }
    while (done < count) {
      int j = s.indexOf(old, i);
      if (j < 0) {
        break;
      }
      sb.append(s, i, j).append(with);
      i = j + old.length();
      done++;
    }
    return sb.append(s.substring(i)).toString();
  }

  /** Python's {@code str.count(sub)}: non-overlapping occurrences. */
  static long count(String s, String sub) {
    if (sub.isEmpty()) {
      return Py.len(s) + 1;
    }
    long n = 0;
    int i = 0;
    while ((i = s.indexOf(sub, i)) >= 0) {
      n++;
      i += sub.length();
    }
    return n;
  }

  /** Code-point index of the first {@code sub}, or -1. */
  static long find(String s, String sub, boolean last) {
    int i = last ? s.lastIndexOf(sub) : s.indexOf(sub);
    return i < 0 ? -1 : s.codePointCount(0, i);
  }

  /** {@code s * n} with the render's size bound (no overflow, no giant allocation). */
  static String repeat(String s, long n) {
    if (n <= 0 || s.isEmpty()) {
      return "";
    }
    Meter.current().value(Meter.times(s.length(), n));
    return s.repeat((int) n);
  }

  static String pad(String s, long width, char align, String fill) {
    int len = Py.len(s);
    if (width > len) {
      Meter.current().value(Meter.times(width, Math.max(1, fill.length())));
    }
    if (width <= len) {
      return s;
    }
    int total = (int) width - len;
    int left;
    switch (align) {
      case '<' -> left = 0;
      case '>' -> left = total;
      default -> left = total / 2 + (total & (int) width & 1);
    }
    return repeat(fill, left) + s + repeat(fill, total - left);
  }

  static String zfill(String s, long width) {
    int len = Py.len(s);
    if (width <= len) {
      return s;
    }
    String zeros = repeat("0", width - len);
    if (!s.isEmpty() && (s.charAt(0) == '+' || s.charAt(0) == '-')) {
      return s.charAt(0) + zeros + s.substring(1);
    }
    return zeros + s;
  }

  static boolean allMatch(String s, java.util.function.IntPredicate p) {
    if (s.isEmpty()) {
      return false;
    }
    return s.codePoints().allMatch(p);
  }

  static boolean isLower(String s) {
    boolean cased = false;
    for (int c : s.codePoints().toArray()) {
      if (Character.isUpperCase(c) || Character.isTitleCase(c)) {
        return false;
      }
      cased |= Character.isLowerCase(c);
    }
    return cased;
  }

  static boolean isUpper(String s) {
    boolean cased = false;
    for (int c : s.codePoints().toArray()) {
      if (Character.isLowerCase(c) || Character.isTitleCase(c)) {
        return false;
      }
      cased |= Character.isUpperCase(c);
    }
    return cased;
  }
}
