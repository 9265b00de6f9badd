package io.infera.router.engineload;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A bounded, lenient reader of the Prometheus text exposition format that keeps only the samples of
 * the metric names asked for. Built for hostile input: a line longer than {@link
 * Limits#maxLineChars}, a sample with more than {@link Limits#maxLabels} labels, a bad name, label
 * or value is skipped and counted, never an exception; a name/label-set seen twice keeps its first
 * value. Values may be {@code NaN}, {@code +Inf}, {@code -Inf}; callers decide what they mean. Pure
 * and thread-safe.
 */
public final class PromText {

  /**
   * Bounds of one parse.
   *
   * @param maxLineChars longer lines are skipped (counted as {@code longLines})
   * @param maxLabels samples with more labels are skipped (counted as malformed)
   * @param maxSamples wanted samples kept at most; the rest are counted as {@code dropped}
   */
  public record Limits(int maxLineChars, int maxLabels, int maxSamples) {
    public static final Limits DEFAULTS = new Limits(64 * 1024, 64, 4096);

    public Limits {
      if (maxLineChars < 1 || maxLabels < 0 || maxSamples < 0) {
        throw new IllegalArgumentException("limits must be positive");
      }
    }
  }

  /** One sample: the metric name, its labels (in their order), its value. */
  public record Sample(String name, Map<String, String> labels, double value) {
    public Sample {
      labels = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    }

    /** A label's value, or null. */
    public String label(String key) {
      return labels.get(key);
    }
  }

  /**
   * What a parse kept and skipped.
   *
   * @param malformed wanted lines that could not be read (bad labels, value, too many labels)
   * @param duplicates wanted samples whose name and labels were already seen (first kept)
   * @param longLines lines over {@link Limits#maxLineChars}, wanted or not
   * @param dropped wanted samples over {@link Limits#maxSamples}
   */
  public record Result(
      List<Sample> samples, int malformed, int duplicates, int longLines, int dropped) {
    public Result {
      samples = List.copyOf(samples);
    }
  }

  private PromText() {}

  /** Parses {@code text}, keeping the samples whose metric name {@code wanted} accepts. */
  public static Result parse(CharSequence text, Predicate<String> wanted, Limits limits) {
    List<Sample> out = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    int malformed = 0;
    int duplicates = 0;
    int longLines = 0;
    int dropped = 0;
    int n = text.length();
    int i = 0;
    while (i < n) {
      int end = i;
      while (end < n && text.charAt(end) != '\n') {
        end++;
      }
      int lineEnd = end > i && text.charAt(end - 1) == '\r' ? end - 1 : end;
      if (lineEnd - i > limits.maxLineChars()) {
        longLines++;
      } else {
        Line l = line(text, i, lineEnd, wanted, limits);
        switch (l.kind) {
          case SKIP -> {}
          case BAD -> malformed++;
          case SAMPLE -> {
            // Duplicates compare name and labels only, not the value.
            String key = l.sample.name() + '\u0000' + l.sample.labels();
            if (!keys.add(key)) {
              duplicates++;
            } else if (out.size() >= limits.maxSamples()) {
              dropped++;
            } else {
              out.add(l.sample);
            }
          }
        }
      }
      i = end + 1;
    }
    return new Result(out, malformed, duplicates, longLines, dropped);
  }

  private enum Kind {
    SKIP,
    BAD,
    SAMPLE
  }

  private record Line(Kind kind, Sample sample) {
    static final Line SKIP = new Line(Kind.SKIP, null);
    static final Line BAD = new Line(Kind.BAD, null);
  }

  private static Line line(
      CharSequence t, int from, int to, Predicate<String> wanted, Limits limits) {
    int p = skipBlanks(t, from, to);
    if (p >= to || t.charAt(p) == '#') {
      return Line.SKIP;
    }
    int nameEnd = p;
    while (nameEnd < to && nameChar(t.charAt(nameEnd), nameEnd == p)) {
      nameEnd++;
    }
    if (nameEnd == p) {
      return Line.SKIP; // not a sample line of any name: nothing we asked for
    }
    String name = t.subSequence(p, nameEnd).toString();
    if (!wanted.test(name)) {
      return Line.SKIP;
    }
    p = nameEnd;
    Map<String, String> labels = new LinkedHashMap<>();
    if (p < to && t.charAt(p) == '{') {
      p++;
      while (true) {
        p = skipBlanks(t, p, to);
        if (p >= to) {
          return Line.BAD;
        }
        if (t.charAt(p) == '}') {
          p++;
          break;
        }
        int k = p;
        while (p < to && labelChar(t.charAt(p), p == k)) {
          p++;
        }
        if (p == k) {
          return Line.BAD;
        }
        String key = t.subSequence(k, p).toString();
        p = skipBlanks(t, p, to);
        if (p >= to || t.charAt(p) != '=') {
          return Line.BAD;
        }
        p = skipBlanks(t, p + 1, to);
        if (p >= to || t.charAt(p) != '"') {
          return Line.BAD;
        }
        p++;
        StringBuilder v = new StringBuilder();
        boolean closed = false;
        while (p < to) {
          char c = t.charAt(p++);
          if (c == '"') {
            closed = true;
            break;
          }
          if (c == '\\') {
            if (p >= to) {
              return Line.BAD;
            }
            char e = t.charAt(p++);
            switch (e) {
              case '\\' -> v.append('\\');
              case '"' -> v.append('"');
              case 'n' -> v.append('\n');
              default -> {
                // The format defines only these three escapes; keep others verbatim.
                v.append('\\').append(e);
              }
            }
          } else {
            v.append(c);
          }
        }
        if (!closed || labels.containsKey(key)) {
          return Line.BAD;
        }
        labels.put(key, v.toString());
        if (labels.size() > limits.maxLabels()) {
          return Line.BAD;
        }
        p = skipBlanks(t, p, to);
        if (p < to && t.charAt(p) == ',') {
          p++;
        } else if (p >= to || t.charAt(p) != '}') {
          return Line.BAD;
        }
      }
    }
    if (p >= to || !blank(t.charAt(p))) {
      return Line.BAD;
    }
    p = skipBlanks(t, p, to);
    int v = p;
    while (p < to && !blank(t.charAt(p))) {
      p++;
    }
    Double value = value(t.subSequence(v, p).toString());
    if (value == null) {
      return Line.BAD;
    }
    // An optional integer timestamp may follow; anything else is malformed.
    p = skipBlanks(t, p, to);
    if (p < to) {
      int ts = p;
      if (t.charAt(p) == '-' || t.charAt(p) == '+') {
        p++;
      }
      int digits = p;
      while (p < to && t.charAt(p) >= '0' && t.charAt(p) <= '9') {
        p++;
      }
      if (p == digits || p - ts > 20 || skipBlanks(t, p, to) < to) {
        return Line.BAD;
      }
    }
    return new Line(Kind.SAMPLE, new Sample(name, labels, value));
  }

  /** The value of a sample: a decimal float, {@code NaN}, {@code [+-]Inf}; null when not one. */
  static Double value(String s) {
    if (s.isEmpty() || s.length() > 64) {
      return null;
    }
    switch (s) {
      case "NaN":
        return Double.NaN;
      case "+Inf":
      case "Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      default:
        break;
    }
    // Only decimal syntax: Java's parser would also take "1d", "0x1p3" or "Infinity".
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
        return null;
      }
    }
    try {
      return Double.parseDouble(s);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static boolean nameChar(char c, boolean first) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || c == '_'
        || c == ':'
        || (!first && c >= '0' && c <= '9');
  }

  private static boolean labelChar(char c, boolean first) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || c == '_'
        || (!first && c >= '0' && c <= '9');
  }

  private static boolean blank(char c) {
    return c == ' ' || c == '\t';
  }

  private static int skipBlanks(CharSequence t, int p, int to) {
    while (p < to && blank(t.charAt(p))) {
      p++;
    }
    return p;
  }
}
