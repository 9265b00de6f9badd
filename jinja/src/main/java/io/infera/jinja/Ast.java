package io.infera.jinja;

import java.util.List;

/** The template AST: immutable records, built once by the parser and shared by renders. */
final class Ast {

  private Ast() {}

  /** A statement or a piece of output. */
  sealed interface Node
      permits Text,
          Output,
          If,
          For,
          Set,
          SetBlock,
          Macro,
          CallBlock,
          FilterBlock,
          With,
          Break,
          Continue,
          Scope {}

  /** An expression. */
  sealed interface Expr
      permits Literal,
          Name,
          ListExpr,
          TupleExpr,
          DictExpr,
          GetAttr,
          GetItem,
          SliceExpr,
          Call,
          Filter,
          Test,
          Unary,
          Binary,
          Compare,
          And,
          Or,
          Not,
          Concat,
          CondExpr {}

  record Text(String text) implements Node {}

  record Output(Expr expr, int line) implements Node {}

  record If(List<Expr> conditions, List<List<Node>> bodies, List<Node> orElse, int line)
      implements Node {}

  /** {@code for target in iter [if filter] … [else …]}. */
  record For(
      Target target,
      Expr iter,
      Expr filter,
      List<Node> body,
      List<Node> orElse,
      boolean recursive,
      int line)
      implements Node {}

  /** {@code set target = value}. */
  record Set(Target target, Expr value, int line) implements Node {}

  /** {@code set name [| filters] %}…{% endset}. */
  record SetBlock(Target target, List<Filter> filters, List<Node> body, int line) implements Node {}

  record Macro(String name, List<Param> params, List<Node> body, int line) implements Node {}

  /** {@code call(params) callee(args)}: body becomes {@code caller}. */
  record CallBlock(List<Param> params, Call call, List<Node> body, int line) implements Node {}

  record FilterBlock(List<Filter> filters, List<Node> body, int line) implements Node {}

  record With(List<Target> targets, List<Expr> values, List<Node> body, int line) implements Node {}

  record Break(int line) implements Node {}

  record Continue(int line) implements Node {}

  /** A body rendered as is in the current scope (the {@code generation} block). */
  record Scope(List<Node> body) implements Node {}

  /** A macro parameter with its optional default. */
  record Param(String name, Expr defaultValue) {}

  /** An assignment target: a name, {@code ns.attr}, or a tuple of targets. */
  sealed interface Target permits NameTarget, AttrTarget, TupleTarget {}

  record NameTarget(String name) implements Target {}

  record AttrTarget(String object, String attr) implements Target {}

  record TupleTarget(List<Target> items) implements Target {}

  record Literal(Object value) implements Expr {}

  record Name(String name, int line) implements Expr {}

  record ListExpr(List<Expr> items) implements Expr {}

  record TupleExpr(List<Expr> items) implements Expr {}

  record DictExpr(List<Expr> keys, List<Expr> values) implements Expr {}

  record GetAttr(Expr object, String attr, int line) implements Expr {}

  record GetItem(Expr object, Expr key, int line) implements Expr {}

  /** {@code [start:stop:step]}; any part may be null. */
  record SliceExpr(Expr start, Expr stop, Expr step) implements Expr {}

  record Arg(String name, Expr value) {}

  /** A call; {@code starArgs}/{@code starKwargs} are {@code *x} / {@code **x}, or null. */
  record Call(Expr callee, List<Arg> args, Expr starArgs, Expr starKwargs, int line)
      implements Expr {}

  record Filter(Expr value, String name, List<Arg> args, int line) implements Expr {}

  record Test(Expr value, String name, List<Arg> args, boolean negated, int line) implements Expr {}

  record Unary(String op, Expr operand, int line) implements Expr {}

  record Binary(String op, Expr left, Expr right, int line) implements Expr {}

  /** {@code a op1 b op2 c}: chained comparisons, Python style. */
  record Compare(Expr first, List<String> ops, List<Expr> rest, int line) implements Expr {}

  record And(Expr left, Expr right) implements Expr {}

  record Or(Expr left, Expr right) implements Expr {}

  record Not(Expr operand) implements Expr {}

  record Concat(List<Expr> parts) implements Expr {}

  /** {@code a if cond else b}; {@code orElse} may be null (undefined when false). */
  record CondExpr(Expr cond, Expr then, Expr orElse) implements Expr {}
}
