package io.infera.e2e;

import java.util.Map;

/**
 * Kubernetes' {@code $(VAR)} references in a container's command, args and env values, expanded as
 * the kubelet does: {@code $(NAME)} becomes the variable's value when it is defined and stays as
 * written when it is not, {@code $$} is one literal {@code $}, any other {@code $} is kept.
 */
final class KubeletExpansion {

  private KubeletExpansion() {}

  /** Expands {@code input} against {@code vars}; never fails, whatever the input. */
  static String expand(String input, Map<String, String> vars) {
    StringBuilder out = new StringBuilder(input.length());
    int i = 0;
    while (i < input.length()) {
      char c = input.charAt(i);
      if (c != '$' || i + 1 == input.length()) {
        out.append(c);
        i++;
        continue;
      }
      char next = input.charAt(i + 1);
      if (next == '$') {
        out.append('$');
        i += 2;
      } else if (next == '(') {
        int close = input.indexOf(')', i + 2);
        if (close < 0) {
          // An unclosed reference is kept as written, to the end.
          out.append(input, i, input.length());
          return out.toString();
        }
        String name = input.substring(i + 2, close);
        String value = vars.get(name);
        out.append(value != null ? value : input.substring(i, close + 1));
        i = close + 1;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
