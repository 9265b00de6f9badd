package io.infera.jinja;

import io.infera.jinja.TemplateException.Kind;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Splits a template into tokens the way Jinja2's lexer does, with {@code trim_blocks} and {@code
 * lstrip_blocks} on: text between tags arrives already whitespace-processed, comments are gone, and
 * {@code raw} blocks are text.
 *
 * <p>Rules (Jinja2 3.1): line endings are normalized to {@code \n} and one trailing newline is
 * dropped; {@code {%-}/{{-}/{#-} strip all whitespace before, {@code -%}}/{@code -}}}/{@code -#}}
 * all whitespace after; a block or comment tag drops the newline right after it unless it ends with
 * {@code +%}}; spaces and tabs between a line start and a block or comment tag are removed unless
 * it starts with {@code {%+}; inside brackets {@code }}} and {@code %}} do not end a tag.
 */
final class Lexer {

  enum Type {
    DATA,
    VAR_BEGIN,
    VAR_END,
    BLOCK_BEGIN,
    BLOCK_END,
    NAME,
    STRING,
    INTEGER,
    FLOAT,
    OPERATOR,
    EOF
  }

  record Token(Type type, String text, Object value, int line) {
    boolean is(Type t, String s) {
      return type == t && text.equals(s);
    }

    boolean isName(String s) {
      return type == Type.NAME && text.equals(s);
    }

    boolean isOp(String s) {
      return type == Type.OPERATOR && text.equals(s);
    }

    @Override
    public String toString() {
      return type == Type.EOF ? "end of template" : "'" + text + "'";
    }
  }

  private static final String[] OPERATORS = {
    "//", "**", "==", "!=", ">=", "<=", "+", "-", "/", "*", "%", "~", "[", "]", "(", ")", "{", "}",
    "<", ">", "=", ".", ":", "|", ",", ";"
  };

  /** A tag found in the source, before text processing. */
  private enum TagKind {
    VAR,
    BLOCK,
    COMMENT,
    RAW
  }

  private final String src;
  private final List<Token> out = new ArrayList<>();
  private int pos;
  private int line = 1;

  private Lexer(String source) {
    String s = source.replace("\r\n", "\n").replace('\r', '\n');
    if (s.endsWith("\n")) {
      s = s.substring(0, s.length() - 1);
    }
    this.src = s;
  }

  static List<Token> tokenize(String source) {
    Lexer l = new Lexer(source);
    l.run();
    return l.out;
  }

  // ------------------------------------------------------------------ text and tags

  private void run() {
    // State carried from the previous tag to the next text.
    TagKind prevKind = null;
    char prevRight = 0;
    boolean lineStarting = true;
    while (true) {
      int next = findTagStart(pos);
      String text = src.substring(pos, next < 0 ? src.length() : next);
      int textLine = line;
      // Left side: what the previous tag's end swallowed.
      if (prevKind != null) {
        boolean trims =
            prevKind == TagKind.RAW
                ? prevRight == 'T'
                : prevKind != TagKind.VAR && prevRight != '+';
        if (prevRight == '-') {
          int k = 0;
          while (k < text.length() && Py.isSpace(text.charAt(k))) {
            k++;
          }
          String consumed = text.substring(0, k);
          text = text.substring(k);
          lineStarting = consumed.endsWith("\n");
        } else if (trims) {
          if (text.startsWith("\n")) {
            text = text.substring(1);
            lineStarting = true;
          } else {
            lineStarting = false;
          }
        } else {
          lineStarting = false;
        }
      }
      if (next < 0) {
        emitText(text, textLine);
        line += countNewlines(src, pos, src.length());
        pos = src.length();
        break;
      }
      TagKind kind = kindAt(next);
      char leftMod = next + 2 < src.length() ? src.charAt(next + 2) : 0;
      // Right side: what the next tag's start strips.
      if (leftMod == '-') {
        text = stripTrailingWhitespace(text);
      } else if (kind != TagKind.VAR && leftMod != '+') {
        int lpos = text.lastIndexOf('\n') + 1;
        if ((lpos > 0 || lineStarting) && lpos < text.length() && isAllWhitespace(text, lpos)) {
          text = text.substring(0, lpos);
        }
      }
      emitText(text, textLine);
      line += countNewlines(src, pos, next);
      pos = next;
      char[] right = new char[1];
      kind = readTag(kind, right);
      prevKind = kind;
      prevRight = right[0];
    }
    out.add(new Token(Type.EOF, "", null, line));
  }

  private void emitText(String text, int at) {
    if (!text.isEmpty()) {
      out.add(new Token(Type.DATA, text, null, at));
    }
  }

  private int findTagStart(int from) {
    int i = from;
    while (true) {
      int j = src.indexOf('{', i);
      if (j < 0 || j + 1 >= src.length()) {
        return -1;
      }
      char c = src.charAt(j + 1);
      if (c == '{' || c == '%' || c == '#') {
        return j;
      }
      i = j + 1;
    }
  }

  private TagKind kindAt(int at) {
    return switch (src.charAt(at + 1)) {
      case '{' -> TagKind.VAR;
      case '%' -> isRawStart(at) ? TagKind.RAW : TagKind.BLOCK;
      default -> TagKind.COMMENT;
    };
  }

  private boolean isRawStart(int at) {
    int i = at + 2;
    if (i < src.length() && (src.charAt(i) == '-' || src.charAt(i) == '+')) {
      i++;
    }
    while (i < src.length() && Character.isWhitespace(src.charAt(i))) {
      i++;
    }
    if (!src.startsWith("raw", i)) {
      return false;
    }
    i += 3;
    while (i < src.length() && Character.isWhitespace(src.charAt(i))) {
      i++;
    }
    return src.startsWith("%}", i) || src.startsWith("-%}", i);
  }

  /** Reads one tag starting at {@code pos}; returns its kind and sets {@code right[0]}. */
  private TagKind readTag(TagKind kind, char[] right) {
    int start = pos;
    int tagLine = line;
    pos += 2;
    if (pos < src.length() && (src.charAt(pos) == '-' || src.charAt(pos) == '+')) {
      pos++;
    }
    switch (kind) {
      case COMMENT -> {
        int end = src.indexOf("#}", pos);
        if (end < 0) {
          throw syntax("missing end of comment tag", tagLine);
        }
        char mod = end > pos ? src.charAt(end - 1) : 0;
        right[0] = mod == '-' || mod == '+' ? mod : 0;
        line += countNewlines(src, start, end + 2);
        pos = end + 2;
        return kind;
      }
      case RAW -> {
        int close = src.indexOf("%}", pos);
        right[0] = src.charAt(close - 1) == '-' ? '-' : 0;
        pos = close + 2;
        readRawBody(tagLine, right[0]);
        right[0] = lastRawRight;
        return kind;
      }
      case VAR -> {
        out.add(new Token(Type.VAR_BEGIN, "{{", null, tagLine));
        right[0] = readInner("}}", Type.VAR_END);
        return kind;
      }
      case BLOCK -> {
        out.add(new Token(Type.BLOCK_BEGIN, "{%", null, tagLine));
        right[0] = readInner("%}", Type.BLOCK_END);
        return kind;
      }
    }
    throw new AssertionError(kind);
  }

  private char lastRawRight;

  /** The body of {@code raw} up to {@code endraw}, emitted as text; sets {@link #lastRawRight}. */
  private void readRawBody(int tagLine, char openRight) {
    int searchFrom = pos;
    while (true) {
      int t = src.indexOf("{%", searchFrom);
      if (t < 0) {
        throw syntax("missing endraw for raw block", tagLine);
      }
      int i = t + 2;
      char leftMod = 0;
      if (i < src.length() && (src.charAt(i) == '-' || src.charAt(i) == '+')) {
        leftMod = src.charAt(i);
        i++;
      }
      while (i < src.length() && Character.isWhitespace(src.charAt(i))) {
        i++;
      }
      if (src.startsWith("endraw", i)) {
        int j = i + 6;
        while (j < src.length() && Character.isWhitespace(src.charAt(j))) {
          j++;
        }
        char rightMod = 0;
        if (j < src.length() && (src.charAt(j) == '-' || src.charAt(j) == '+')) {
          rightMod = src.charAt(j);
          j++;
        }
        if (src.startsWith("%}", j)) {
          String body = src.substring(pos, t);
          if (openRight == '-') {
            int k = 0;
            while (k < body.length() && Py.isSpace(body.charAt(k))) {
              k++;
            }
            body = body.substring(k);
          }
          if (leftMod == '-') {
            body = stripTrailingWhitespace(body);
          }
          emitText(body, line);
          line += countNewlines(src, pos, j + 2);
          pos = j + 2;
          // endraw behaves like a block end for what follows.
          lastRawRight = rightMod == '+' ? '+' : rightMod == '-' ? '-' : 'T';
          return;
        }
      }
      searchFrom = t + 2;
    }
  }

  /** Lexes expression tokens up to the closing delimiter; returns its modifier. */
  private char readInner(String close, Type endType) {
    Deque<Character> balance = new ArrayDeque<>();
    while (true) {
      skipWhitespaceInTag();
      if (pos >= src.length()) {
        throw syntax("unexpected end of template, expected '" + close + "'", line);
      }
      if (balance.isEmpty()) {
        char mod = 0;
        int at = pos;
        if ((src.charAt(pos) == '-' || src.charAt(pos) == '+') && src.startsWith(close, pos + 1)) {
          mod = src.charAt(pos);
          at = pos + 1;
        }
        if (src.startsWith(close, at) && (mod != '+' || endType == Type.BLOCK_END)) {
          out.add(new Token(endType, close, null, line));
          pos = at + 2;
          return mod;
        }
      }
      Token t = readToken();
      if (t.type() == Type.OPERATOR) {
        switch (t.text()) {
          case "(", "[", "{" -> balance.push(t.text().charAt(0));
          case ")", "]", "}" -> {
            char want = t.text().equals(")") ? '(' : t.text().equals("]") ? '[' : '{';
            if (balance.isEmpty() || balance.peek() != want) {
              throw syntax("unexpected '" + t.text() + "'", t.line());
            }
            balance.pop();
          }
          default -> {}
        }
      }
      out.add(t);
    }
  }

  private void skipWhitespaceInTag() {
    while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
      if (src.charAt(pos) == '\n') {
        line++;
      }
      pos++;
    }
  }

  private Token readToken() {
    char c = src.charAt(pos);
    int at = line;
    if (c == '\'' || c == '"') {
      return readString(c);
    }
    if (Character.isDigit(c)) {
      return readNumber();
    }
    if (Character.isUnicodeIdentifierStart(c) || c == '_') {
      int start = pos;
      pos++;
      while (pos < src.length()
          && (Character.isUnicodeIdentifierPart(src.charAt(pos)) || src.charAt(pos) == '_')
          && !Character.isIdentifierIgnorable(src.charAt(pos))) {
        pos++;
      }
      String name = src.substring(start, pos);
      return new Token(Type.NAME, name, null, at);
    }
    for (String op : OPERATORS) {
      if (src.startsWith(op, pos)) {
        pos += op.length();
        return new Token(Type.OPERATOR, op, null, at);
      }
    }
    throw syntax("unexpected char '" + c + "'", at);
  }

  private Token readString(char quote) {
    int at = line;
    int start = pos;
    StringBuilder sb = new StringBuilder();
    pos++;
    while (true) {
      if (pos >= src.length()) {
        throw syntax("unexpected end of string", at);
      }
      char c = src.charAt(pos);
      if (c == quote) {
        pos++;
        break;
      }
      if (c == '\n') {
        line++;
      }
      if (c == '\\' && pos + 1 < src.length()) {
        pos = unescape(sb, pos + 1);
        continue;
      }
      sb.append(c);
      pos++;
    }
    return new Token(Type.STRING, src.substring(start, pos), sb.toString(), at);
  }

  /** Python's unicode-escape decoding of one escape at {@code i}; returns the next index. */
  private int unescape(StringBuilder sb, int i) {
    char e = src.charAt(i);
    switch (e) {
      case '\n' -> {
        line++;
        return i + 1;
      }
      case '\\' -> sb.append('\\');
      case '\'' -> sb.append('\'');
      case '"' -> sb.append('"');
      case 'a' -> sb.append('\u0007');
      case 'b' -> sb.append('\b');
      case 'f' -> sb.append('\f');
      case 'n' -> sb.append('\n');
      case 'r' -> sb.append('\r');
      case 't' -> sb.append('\t');
      case 'v' -> sb.append('\u000b');
      case 'x', 'u', 'U' -> {
        int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        if (i + n < src.length() + 0 && isHex(src, i + 1, n)) {
          sb.appendCodePoint(Integer.parseUnsignedInt(src.substring(i + 1, i + 1 + n), 16));
          return i + 1 + n;
        }
        throw syntax("truncated \\" + e + " escape in string", line);
      }
      default -> {
        if (e >= '0' && e <= '7') {
          int j = i;
          int v = 0;
          while (j < i + 3 && j < src.length() && src.charAt(j) >= '0' && src.charAt(j) <= '7') {
            v = v * 8 + (src.charAt(j) - '0');
            j++;
          }
          sb.append((char) v);
          return j;
        }
        sb.append('\\').append(e);
      }
    }
    return i + 1;
  }

  private static boolean isHex(String s, int from, int n) {
    if (from + n > s.length()) {
      return false;
    }
    for (int k = from; k < from + n; k++) {
      if (Character.digit(s.charAt(k), 16) < 0) {
        return false;
      }
    }
    return true;
  }

  private Token readNumber() {
    int at = line;
    int start = pos;
    if (src.startsWith("0x", pos) || src.startsWith("0o", pos) || src.startsWith("0b", pos)) {
      int radix = src.charAt(pos + 1) == 'x' ? 16 : src.charAt(pos + 1) == 'o' ? 8 : 2;
      pos += 2;
      int ds = pos;
      while (pos < src.length()
          && (Character.digit(src.charAt(pos), radix) >= 0 || src.charAt(pos) == '_')) {
        pos++;
      }
      String digits = src.substring(ds, pos).replace("_", "");
      return new Token(Type.INTEGER, src.substring(start, pos), integer(digits, radix), at);
    }
    digits();
    boolean isFloat = false;
    if (pos + 1 < src.length()
        && src.charAt(pos) == '.'
        && Character.isDigit(src.charAt(pos + 1))) {
      pos++;
      digits();
      isFloat = true;
    }
    if (pos < src.length() && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
      int save = pos;
      pos++;
      if (pos < src.length() && (src.charAt(pos) == '+' || src.charAt(pos) == '-')) {
        pos++;
      }
      if (pos < src.length() && Character.isDigit(src.charAt(pos))) {
        digits();
        isFloat = true;
      } else {
        pos = save;
      }
    }
    String text = src.substring(start, pos);
    String clean = text.replace("_", "");
    if (isFloat) {
      return new Token(Type.FLOAT, text, Double.parseDouble(clean), at);
    }
    return new Token(Type.INTEGER, text, integer(clean, 10), at);
  }

  private static Object integer(String digits, int radix) {
    BigInteger v = new BigInteger(digits.isEmpty() ? "0" : digits, radix);
    return v.bitLength() < 64 ? (Object) v.longValue() : v;
  }

  private void digits() {
    while (pos < src.length() && (Character.isDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
      pos++;
    }
  }

  private static String stripTrailingWhitespace(String s) {
    int end = s.length();
    while (end > 0 && Py.isSpace(s.charAt(end - 1))) {
      end--;
    }
    return s.substring(0, end);
  }

  private static boolean isAllWhitespace(String s, int from) {
    for (int i = from; i < s.length(); i++) {
      if (!Py.isSpace(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static int countNewlines(String s, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      if (s.charAt(i) == '\n') {
        n++;
      }
    }
    return n;
  }

  static TemplateException syntax(String message, int line) {
    return new TemplateException(Kind.SYNTAX, message, line);
  }
}
