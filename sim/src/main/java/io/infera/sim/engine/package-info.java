/**
 * engine: a simulated vLLM/SGLang server ({@link io.infera.sim.engine.SimEngine}) — vLLM's OpenAI
 * HTTP API over one {@code sched.EngineCore} per data-parallel rank, publishing the cache's KV
 * events over ZMQ exactly as vLLM's {@code ZmqEventPublisher} does, in the flavor's wire shape.
 *
 * <p>Invariants: a rank's core is touched only by its engine loop thread, between steps for
 * anything but submit/cancel; a step's KV events go out as one batch before its tokens reach
 * clients; ZMQ sockets stay on their publisher thread; the event loop never tokenizes. Answer text
 * is made of single-token words, so it re-encodes to exactly {@code completion_tokens} ids (the
 * core caches its own generated ids, so a next turn hits the previous prompt's blocks only).
 */
package io.infera.sim.engine;
