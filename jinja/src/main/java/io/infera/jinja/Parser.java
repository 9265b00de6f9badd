package io.infera.jinja;

import io.infera.jinja.Ast.Arg;
import io.infera.jinja.Ast.Expr;
import io.infera.jinja.Ast.Node;
import io.infera.jinja.Ast.Param;
import io.infera.jinja.Ast.Target;
import io.infera.jinja.Lexer.Token;
import io.infera.jinja.Lexer.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Recursive-descent parser with Jinja2's grammar and operator precedence. */
final class Parser {

  private static final Set<String> COMPARE_OPS = Set.of("==", "!=", "<", "<=", ">", ">=");

  private final List<Token> tokens;
  private int pos;
  private int loopDepth;

  private Parser(List<Token> tokens) {
    this.tokens = tokens;
  }

  static List<Node> parse(String source) {
    Parser p = new Parser(Lexer.tokenize(source));
    List<Node> body = p.subparse(Set.of());
    if (p.peek().type() != Type.EOF) {
      Token t = p.peekAt(1);
      throw Lexer.syntax("unexpected '" + t.text() + "'", t.line());
    }
    return body;
  }

  // ------------------------------------------------------------------ token helpers

  private Token peek() {
    return tokens.get(pos);
  }

  private Token peekAt(int ahead) {
    return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
  }

  private Token next() {
    Token t = tokens.get(pos);
    if (t.type() != Type.EOF) {
      pos++;
    }
    return t;
  }

  private boolean skipOp(String op) {
    if (peek().isOp(op)) {
      pos++;
      return true;
    }
    return false;
  }

  private boolean skipName(String name) {
    if (peek().isName(name)) {
      pos++;
      return true;
    }
    return false;
  }

  private Token expectOp(String op) {
    Token t = next();
    if (!t.isOp(op)) {
      throw Lexer.syntax("expected '" + op + "', got " + t, t.line());
    }
    return t;
  }

  private Token expect(Type type, String what) {
    Token t = next();
    if (t.type() != type) {
      throw Lexer.syntax("expected " + what + ", got " + t, t.line());
    }
    return t;
  }

  private String expectName() {
    return expect(Type.NAME, "a name").text();
  }

  private void expectBlockEnd() {
    Token t = next();
    if (t.type() != Type.BLOCK_END) {
      throw Lexer.syntax("expected end of statement block, got " + t, t.line());
    }
  }

  // ------------------------------------------------------------------ statements

  /** Parses nodes until a block tag named in {@code ends} (left unconsumed) or EOF. */
  private List<Node> subparse(Set<String> ends) {
    List<Node> body = new ArrayList<>();
    while (true) {
      Token t = peek();
      switch (t.type()) {
        case DATA -> {
          next();
          body.add(new Ast.Text(t.text()));
        }
        case VAR_BEGIN -> {
          next();
          Expr e = parseTuple(true, false, Set.of());
          expect(Type.VAR_END, "end of print statement");
          body.add(new Ast.Output(e, t.line()));
        }
        case BLOCK_BEGIN -> {
          Token name = peekAt(1);
          if (name.type() == Type.NAME && ends.contains(name.text())) {
            return body;
          }
          next();
          body.add(statement());
        }
        case EOF -> {
          if (!ends.isEmpty()) {
            throw Lexer.syntax(
                "unexpected end of template, expected one of " + String.join(", ", ends), t.line());
          }
          return body;
        }
        default -> throw Lexer.syntax("unexpected " + t, t.line());
      }
    }
  }

  /** After {@code {%}: the keyword and its statement through the matching end tag. */
  private Node statement() {
    Token kw = next();
    if (kw.type() != Type.NAME) {
      throw Lexer.syntax("tag name expected", kw.line());
    }
    int line = kw.line();
    return switch (kw.text()) {
      case "if" -> parseIf(line);
      case "for" -> parseFor(line);
      case "set" -> parseSet(line);
      case "macro" -> parseMacro(line);
      case "call" -> parseCall(line);
      case "filter" -> parseFilterBlock(line);
      case "with" -> parseWith(line);
      case "generation" -> {
        expectBlockEnd();
        List<Node> body = subparse(Set.of("endgeneration"));
        endTag("endgeneration");
        yield new Ast.Scope(body);
      }
      case "break", "continue" -> {
        if (loopDepth == 0) {
          throw Lexer.syntax("'" + kw.text() + "' outside of a loop", line);
        }
        expectBlockEnd();
        yield kw.text().equals("break") ? new Ast.Break(line) : new Ast.Continue(line);
      }
      default ->
          throw Lexer.syntax(
              "Encountered unknown tag '"
                  + kw.text()
                  + "'. Chat templates may use if, for, set, macro, call, filter, with,"
                  + " generation, break and continue.",
              line);
    };
  }

  /** Consumes {@code {% name %}} for an end tag found by {@link #subparse}. */
  private void endTag(String name) {
    expect(Type.BLOCK_BEGIN, "'{%'");
    Token t = next();
    if (!t.isName(name)) {
      throw Lexer.syntax("expected '" + name + "', got " + t, t.line());
    }
    expectBlockEnd();
  }

  private Node parseIf(int line) {
    List<Expr> conds = new ArrayList<>();
    List<List<Node>> bodies = new ArrayList<>();
    conds.add(parseTuple(false, false, Set.of()));
    expectBlockEnd();
    bodies.add(subparse(Set.of("elif", "else", "endif")));
    List<Node> orElse = List.of();
    while (true) {
      expect(Type.BLOCK_BEGIN, "'{%'");
      Token t = next();
      if (t.isName("elif")) {
        conds.add(parseTuple(false, false, Set.of()));
        expectBlockEnd();
        bodies.add(subparse(Set.of("elif", "else", "endif")));
      } else if (t.isName("else")) {
        expectBlockEnd();
        orElse = subparse(Set.of("endif"));
        endTag("endif");
        break;
      } else {
        expectBlockEnd();
        break;
      }
    }
    return new Ast.If(conds, bodies, orElse, line);
  }

  private Node parseFor(int line) {
    Target target = parseAssignTarget(false, Set.of("in"));
    if (!skipName("in")) {
      throw Lexer.syntax("expected 'in' in for loop", line);
    }
    Expr iter = parseTuple(false, false, Set.of("recursive"));
    Expr filter = null;
    if (skipName("if")) {
      filter = parseExpression(true);
    }
    boolean recursive = skipName("recursive");
    expectBlockEnd();
    loopDepth++;
    List<Node> body = subparse(Set.of("endfor", "else"));
    loopDepth--;
    List<Node> orElse = List.of();
    expect(Type.BLOCK_BEGIN, "'{%'");
    if (next().isName("else")) {
      expectBlockEnd();
      orElse = subparse(Set.of("endfor"));
      endTag("endfor");
    } else {
      expectBlockEnd();
    }
    return new Ast.For(target, iter, filter, body, orElse, recursive, line);
  }

  private Node parseSet(int line) {
    Target target = parseAssignTarget(true, Set.of());
    if (skipOp("=")) {
      Expr value = parseTuple(true, false, Set.of());
      expectBlockEnd();
      return new Ast.Set(target, value, line);
    }
    List<Ast.Filter> filters = new ArrayList<>();
    while (skipOp("|")) {
      filters.add(parseFilterCall(null));
    }
    expectBlockEnd();
    List<Node> body = subparse(Set.of("endset"));
    endTag("endset");
    return new Ast.SetBlock(target, filters, body, line);
  }

  private Node parseMacro(int line) {
    String name = expectName();
    List<Param> params = parseSignature();
    expectBlockEnd();
    int savedDepth = loopDepth;
    loopDepth = 0;
    List<Node> body = subparse(Set.of("endmacro"));
    loopDepth = savedDepth;
    endTag("endmacro");
    return new Ast.Macro(name, params, body, line);
  }

  private List<Param> parseSignature() {
    List<Param> params = new ArrayList<>();
    expectOp("(");
    while (!peek().isOp(")")) {
      if (!params.isEmpty()) {
        expectOp(",");
        if (peek().isOp(")")) {
          break;
        }
      }
      String name = expectName();
      Expr dflt = null;
      if (skipOp("=")) {
        dflt = parseExpression(true);
      } else if (!params.isEmpty() && params.get(params.size() - 1).defaultValue() != null) {
        throw Lexer.syntax("non-default argument follows default argument", peek().line());
      }
      params.add(new Param(name, dflt));
    }
    expectOp(")");
    return params;
  }

  private Node parseCall(int line) {
    List<Param> params = peek().isOp("(") ? parseSignature() : List.of();
    Expr call = parseExpression(true);
    if (!(call instanceof Ast.Call c)) {
      throw Lexer.syntax("expected call", line);
    }
    expectBlockEnd();
    int savedDepth = loopDepth;
    loopDepth = 0;
    List<Node> body = subparse(Set.of("endcall"));
    loopDepth = savedDepth;
    endTag("endcall");
    return new Ast.CallBlock(params, c, body, line);
  }

  private Node parseFilterBlock(int line) {
    List<Ast.Filter> filters = new ArrayList<>();
    filters.add(parseFilterCall(null));
    while (skipOp("|")) {
      filters.add(parseFilterCall(null));
    }
    expectBlockEnd();
    List<Node> body = subparse(Set.of("endfilter"));
    endTag("endfilter");
    return new Ast.FilterBlock(filters, body, line);
  }

  private Node parseWith(int line) {
    List<Target> targets = new ArrayList<>();
    List<Expr> values = new ArrayList<>();
    while (peek().type() != Type.BLOCK_END) {
      if (!targets.isEmpty()) {
        expectOp(",");
      }
      targets.add(parseAssignTarget(false, Set.of()));
      expectOp("=");
      values.add(parseExpression(true));
    }
    expectBlockEnd();
    List<Node> body = subparse(Set.of("endwith"));
    endTag("endwith");
    return new Ast.With(targets, values, body, line);
  }

  private Target parseAssignTarget(boolean withNamespace, Set<String> extraEnds) {
    if (withNamespace && peek().type() == Type.NAME && peekAt(1).isOp(".")) {
      String obj = next().text();
      next();
      return new Ast.AttrTarget(obj, expectName());
    }
    List<Target> items = new ArrayList<>();
    boolean tuple = false;
    while (true) {
      if (!items.isEmpty()) {
        if (!skipOp(",")) {
          break;
        }
        tuple = true;
        if (peek().type() != Type.NAME || extraEnds.contains(peek().text())) {
          break;
        }
      }
      if (skipOp("(")) {
        Target inner = parseAssignTarget(false, Set.of());
        expectOp(")");
        items.add(inner);
      } else {
        Token t = expect(Type.NAME, "a name to assign to");
        if (Set.of("true", "false", "none", "True", "False", "None").contains(t.text())) {
          throw Lexer.syntax("can't assign to '" + t.text() + "'", t.line());
        }
        items.add(new Ast.NameTarget(t.text()));
      }
    }
    return tuple || items.size() > 1 ? new Ast.TupleTarget(items) : items.get(0);
  }

  // ------------------------------------------------------------------ expressions

  /** A comma list becomes a tuple; {@code explicitParens} when inside {@code (…)}. */
  private Expr parseTuple(boolean withCondExpr, boolean explicitParens, Set<String> extraEnds) {
    List<Expr> items = new ArrayList<>();
    boolean comma = false;
    while (true) {
      if (!items.isEmpty()) {
        if (!skipOp(",")) {
          break;
        }
        comma = true;
      }
      if (isTupleEnd(extraEnds)) {
        break;
      }
      items.add(parseExpression(withCondExpr));
    }
    if (items.isEmpty()) {
      if (!explicitParens) {
        throw Lexer.syntax("expected an expression, got " + peek(), peek().line());
      }
      return new Ast.TupleExpr(List.of());
    }
    if (!comma && items.size() == 1) {
      return items.get(0);
    }
    return new Ast.TupleExpr(items);
  }

  private boolean isTupleEnd(Set<String> extraEnds) {
    Token t = peek();
    return t.type() == Type.VAR_END
        || t.type() == Type.BLOCK_END
        || t.type() == Type.EOF
        || t.isOp(")")
        || (t.type() == Type.NAME && extraEnds.contains(t.text()));
  }

  private Expr parseExpression(boolean withCondExpr) {
    return withCondExpr ? parseCondExpr() : parseOr();
  }

  private Expr parseCondExpr() {
    Expr expr = parseOr();
    while (skipName("if")) {
      Expr cond = parseOr();
      Expr orElse = skipName("else") ? parseCondExpr() : null;
      expr = new Ast.CondExpr(cond, expr, orElse);
    }
    return expr;
  }

  private Expr parseOr() {
    Expr left = parseAnd();
    while (skipName("or")) {
      left = new Ast.Or(left, parseAnd());
    }
    return left;
  }

  private Expr parseAnd() {
    Expr left = parseNot();
    while (skipName("and")) {
      left = new Ast.And(left, parseNot());
    }
    return left;
  }

  private Expr parseNot() {
    if (skipName("not")) {
      return new Ast.Not(parseNot());
    }
    return parseCompare();
  }

  private Expr parseCompare() {
    int line = peek().line();
    Expr first = parseMath1();
    List<String> ops = new ArrayList<>();
    List<Expr> rest = new ArrayList<>();
    while (true) {
      Token t = peek();
      if (t.type() == Type.OPERATOR && COMPARE_OPS.contains(t.text())) {
        next();
        ops.add(t.text());
        rest.add(parseMath1());
      } else if (t.isName("in")) {
        next();
        ops.add("in");
        rest.add(parseMath1());
      } else if (t.isName("not") && peekAt(1).isName("in")) {
        next();
        next();
        ops.add("notin");
        rest.add(parseMath1());
      } else {
        break;
      }
    }
    return ops.isEmpty() ? first : new Ast.Compare(first, ops, rest, line);
  }

  private Expr parseMath1() {
    Expr left = parseConcat();
    while (peek().isOp("+") || peek().isOp("-")) {
      Token op = next();
      left = new Ast.Binary(op.text(), left, parseConcat(), op.line());
    }
    return left;
  }

  private Expr parseConcat() {
    List<Expr> parts = new ArrayList<>();
    parts.add(parseMath2());
    while (skipOp("~")) {
      parts.add(parseMath2());
    }
    return parts.size() == 1 ? parts.get(0) : new Ast.Concat(parts);
  }

  private Expr parseMath2() {
    Expr left = parsePow();
    while (peek().isOp("*") || peek().isOp("/") || peek().isOp("//") || peek().isOp("%")) {
      Token op = next();
      left = new Ast.Binary(op.text(), left, parsePow(), op.line());
    }
    return left;
  }

  private Expr parsePow() {
    Expr left = parseUnary(true);
    while (peek().isOp("**")) {
      Token op = next();
      left = new Ast.Binary("**", left, parseUnary(true), op.line());
    }
    return left;
  }

  private Expr parseUnary(boolean withFilter) {
    Token t = peek();
    Expr node;
    if (t.isOp("-")) {
      next();
      node = new Ast.Unary("-", parseUnary(false), t.line());
    } else if (t.isOp("+")) {
      next();
      node = new Ast.Unary("+", parseUnary(false), t.line());
    } else {
      node = parsePrimary();
    }
    node = parsePostfix(node);
    if (withFilter) {
      node = parseFilterExpr(node);
    }
    return node;
  }

  private Expr parsePrimary() {
    Token t = next();
    switch (t.type()) {
      case NAME -> {
        return switch (t.text()) {
          case "true", "True" -> new Ast.Literal(Boolean.TRUE);
          case "false", "False" -> new Ast.Literal(Boolean.FALSE);
          case "none", "None" -> new Ast.Literal(null);
          default -> new Ast.Name(t.text(), t.line());
        };
      }
      case STRING -> {
        StringBuilder sb = new StringBuilder((String) t.value());
        while (peek().type() == Type.STRING) {
          sb.append((String) next().value());
        }
        return new Ast.Literal(sb.toString());
      }
      case INTEGER, FLOAT -> {
        return new Ast.Literal(t.value());
      }
      case OPERATOR -> {
        switch (t.text()) {
          case "(" -> {
            Expr e = parseTuple(true, true, Set.of());
            expectOp(")");
            return e;
          }
          case "[" -> {
            List<Expr> items = new ArrayList<>();
            while (!peek().isOp("]")) {
              if (!items.isEmpty()) {
                expectOp(",");
                if (peek().isOp("]")) {
                  break;
                }
              }
              items.add(parseExpression(true));
            }
            expectOp("]");
            return new Ast.ListExpr(items);
          }
          case "{" -> {
            List<Expr> keys = new ArrayList<>();
            List<Expr> values = new ArrayList<>();
            while (!peek().isOp("}")) {
              if (!keys.isEmpty()) {
                expectOp(",");
                if (peek().isOp("}")) {
                  break;
                }
              }
              keys.add(parseExpression(true));
              expectOp(":");
              values.add(parseExpression(true));
            }
            expectOp("}");
            return new Ast.DictExpr(keys, values);
          }
          default -> {}
        }
      }
      default -> {}
    }
    throw Lexer.syntax("unexpected " + t, t.line());
  }

  private Expr parsePostfix(Expr node) {
    while (true) {
      Token t = peek();
      if (t.isOp(".")) {
        next();
        Token attr = next();
        if (attr.type() == Type.NAME) {
          node = new Ast.GetAttr(node, attr.text(), attr.line());
        } else if (attr.type() == Type.INTEGER) {
          node = new Ast.GetItem(node, new Ast.Literal(attr.value()), attr.line());
        } else {
          throw Lexer.syntax("expected name or number after '.'", attr.line());
        }
      } else if (t.isOp("[")) {
        next();
        List<Expr> subs = new ArrayList<>();
        while (!peek().isOp("]")) {
          if (!subs.isEmpty()) {
            expectOp(",");
            if (peek().isOp("]")) {
              break;
            }
          }
          subs.add(parseSubscribed());
        }
        expectOp("]");
        Expr key = subs.size() == 1 ? subs.get(0) : new Ast.TupleExpr(subs);
        node = new Ast.GetItem(node, key, t.line());
      } else if (t.isOp("(")) {
        node = parseCallArgs(node);
      } else {
        return node;
      }
    }
  }

  private Expr parseSubscribed() {
    Expr start = null;
    if (!peek().isOp(":")) {
      start = parseExpression(true);
      if (!peek().isOp(":")) {
        return start;
      }
    }
    next(); // ':'
    Expr stop = null;
    if (!peek().isOp("]") && !peek().isOp(",") && !peek().isOp(":")) {
      stop = parseExpression(true);
    }
    Expr step = null;
    if (skipOp(":")) {
      if (!peek().isOp("]") && !peek().isOp(",")) {
        step = parseExpression(true);
      }
    }
    return new Ast.SliceExpr(start, stop, step);
  }

  private Ast.Call parseCallArgs(Expr callee) {
    Token open = expectOp("(");
    List<Arg> args = new ArrayList<>();
    Expr star = null;
    Expr starstar = null;
    boolean first = true;
    while (!peek().isOp(")")) {
      if (!first) {
        expectOp(",");
        if (peek().isOp(")")) {
          break;
        }
      }
      first = false;
      if (skipOp("**")) {
        starstar = parseExpression(true);
      } else if (skipOp("*")) {
        star = parseExpression(true);
      } else if (peek().type() == Type.NAME && peekAt(1).isOp("=")) {
        String name = next().text();
        next();
        args.add(new Arg(name, parseExpression(true)));
      } else {
        if (args.stream().anyMatch(a -> a.name() != null)) {
          throw Lexer.syntax("positional argument follows keyword argument", peek().line());
        }
        args.add(new Arg(null, parseExpression(true)));
      }
    }
    expectOp(")");
    return new Ast.Call(callee, args, star, starstar, open.line());
  }

  private Expr parseFilterExpr(Expr node) {
    while (true) {
      Token t = peek();
      if (t.isOp("|")) {
        next();
        node = parseFilterCall(node);
      } else if (t.isName("is")) {
        next();
        node = parseTest(node, t.line());
      } else if (t.isOp("(")) {
        node = parseCallArgs(node);
      } else {
        return node;
      }
    }
  }

  /** {@code name[.name][(args)]} after a {@code |}. */
  private Ast.Filter parseFilterCall(Expr value) {
    Token nameTok = expect(Type.NAME, "a filter name");
    String name = nameTok.text();
    while (skipOp(".")) {
      name = name + "." + expectName();
    }
    if (!Filters.NAMES.contains(name)) {
      throw Lexer.syntax("No filter named '" + name + "'.", nameTok.line());
    }
    List<Arg> args = List.of();
    if (peek().isOp("(")) {
      Ast.Call c = parseCallArgs(null);
      if (c.starArgs() != null || c.starKwargs() != null) {
        throw Lexer.syntax("*args and **kwargs are not supported in filter calls", nameTok.line());
      }
      args = c.args();
    }
    return new Ast.Filter(value, name, args, nameTok.line());
  }

  private Expr parseTest(Expr node, int line) {
    boolean negated = skipName("not");
    String name = expectName();
    while (skipOp(".")) {
      name = name + "." + expectName();
    }
    List<Arg> args = List.of();
    Token t = peek();
    if (t.isOp("(")) {
      args = parseCallArgs(null).args();
    } else if ((t.type() == Type.NAME
            || t.type() == Type.STRING
            || t.type() == Type.INTEGER
            || t.type() == Type.FLOAT
            || t.isOp("[")
            || t.isOp("{"))
        && !(t.isName("else") || t.isName("or") || t.isName("and"))) {
      if (t.isName("is")) {
        throw Lexer.syntax("You cannot chain multiple tests with is", t.line());
      }
      Expr arg = parsePostfix(parsePrimary());
      args = List.of(new Arg(null, arg));
    }
    return new Ast.Test(node, name, args, negated, line);
  }
}
