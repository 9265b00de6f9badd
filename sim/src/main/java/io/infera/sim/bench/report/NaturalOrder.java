package io.infera.sim.bench.report;

import java.util.Comparator;

/** Orders worker names as people do: {@code w2} before {@code w10}. */
final class NaturalOrder implements Comparator<String> {

  static final NaturalOrder INSTANCE = new NaturalOrder();

  private NaturalOrder() {}

  @Override
  public int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      char ca = a.charAt(i);
      char cb = b.charAt(j);
      if (isDigit(ca) && isDigit(cb)) {
        int ei = digitsEnd(a, i);
        int ej = digitsEnd(b, j);
        int c = compareNumbers(a.substring(i, ei), b.substring(j, ej));
        if (c != 0) {
          return c;
        }
        i = ei;
        j = ej;
      } else {
        if (ca != cb) {
          return Character.compare(ca, cb);
        }
        i++;
        j++;
      }
    }
    int c = Integer.compare(a.length() - i, b.length() - j);
    // Equal under the natural order (e.g. w01 and w1): fall back to plain order, stay consistent.
    return c != 0 ? c : a.compareTo(b);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int digitsEnd(String s, int from) {
    int k = from;
    while (k < s.length() && isDigit(s.charAt(k))) {
      k++;
    }
    return k;
  }

  private static int compareNumbers(String x, String y) {
    String a = stripZeros(x);
    String b = stripZeros(y);
    return a.length() != b.length() ? Integer.compare(a.length(), b.length()) : a.compareTo(b);
  }

  private static String stripZeros(String s) {
    int k = 0;
    while (k < s.length() - 1 && s.charAt(k) == '0') {
      k++;
    }
    return s.substring(k);
  }
}
