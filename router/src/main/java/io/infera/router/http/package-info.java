/**
 * The Vert.x HTTP server: OpenAI- and Anthropic-compatible proxying with streaming passthrough, and
 * the admin endpoints. Handlers never block the event loop (parsing and tokenization run on the
 * {@code infera-tokenize} worker pool); failures become HTTP responses only in {@link
 * io.infera.router.http.ErrorResponses}. The only package (with the transport adapters) that
 * imports {@code io.vertx}.
 */
package io.infera.router.http;
