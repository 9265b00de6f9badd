/**
 * A Jinja2 engine for Hugging Face chat templates that renders byte-for-byte what Python's Jinja2
 * 3.1 renders in the environment {@code transformers.apply_chat_template} builds: immutable
 * sandbox, {@code trim_blocks} and {@code lstrip_blocks}, {@code loopcontrols}, the {@code
 * generation} block, transformers' {@code tojson}, {@code raise_exception} and {@code
 * strftime_now}. Its own Maven module ({@code jinja/}): it depends on nothing but {@code java.*}
 * (an ArchUnit test checks), and only the router's {@code tokenize} package uses it.
 *
 * <p>Flow: {@link io.infera.jinja.JinjaTemplate#parse} → {@link io.infera.jinja.Lexer} (whitespace
 * control applied to text) → {@link io.infera.jinja.Parser} (an immutable AST, {@link
 * io.infera.jinja.Ast}); {@link io.infera.jinja.JinjaTemplate#render} → {@link
 * io.infera.jinja.Renderer} over Python-semantics values ({@link io.infera.jinja.Py}, with {@link
 * io.infera.jinja.PyText}, {@link io.infera.jinja.PyOps} and {@link io.infera.jinja.PyAccess}).
 * Every failure is a {@link io.infera.jinja.TemplateException} whose kind mirrors Jinja2's
 * exception types. A parsed {@link io.infera.jinja.JinjaTemplate} is immutable and thread-safe;
 * each render has its own state.
 *
 * <p>Every render runs against a {@link io.infera.jinja.RenderBudget} (output, one value's size,
 * total allocation, steps, call depth), scaled by the size of its variables and kept by a
 * per-render {@code Meter} that the value helpers consult <em>before</em> they allocate; over it, a
 * {@link io.infera.jinja.TemplateBudgetException} names the limit.
 */
package io.infera.jinja;
