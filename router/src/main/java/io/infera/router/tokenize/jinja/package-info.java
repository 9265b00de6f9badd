/**
 * A Jinja2 engine for Hugging Face chat templates that renders byte-for-byte what Python's Jinja2
 * 3.1 renders in the environment {@code transformers.apply_chat_template} builds: immutable
 * sandbox, {@code trim_blocks} and {@code lstrip_blocks}, {@code loopcontrols}, the {@code
 * generation} block, transformers' {@code tojson}, {@code raise_exception} and {@code
 * strftime_now}.
 *
 * <p>Flow: {@link io.infera.router.tokenize.jinja.Lexer} (whitespace control applied to text) →
 * {@link io.infera.router.tokenize.jinja.Parser} (an immutable AST, {@link
 * io.infera.router.tokenize.jinja.Ast}) → {@link io.infera.router.tokenize.jinja.Renderer} over
 * Python-semantics values ({@link io.infera.router.tokenize.jinja.Py}). A parsed {@link
 * io.infera.router.tokenize.jinja.JinjaTemplate} is immutable and thread-safe; each render has its
 * own state.
 */
package io.infera.router.tokenize.jinja;
