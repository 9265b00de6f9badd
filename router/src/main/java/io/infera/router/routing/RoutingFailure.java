package io.infera.router.routing;

/**
 * Every way a request can fail in the router, each mapped to one HTTP status and OpenAI error type
 * by the HTTP layer (and nowhere else).
 */
public sealed interface RoutingFailure {

  /** Human-readable message for the client. */
  String message();

  /** Malformed JSON or missing/invalid fields: 400. */
  record BadRequest(String message, String param) implements RoutingFailure {}

  /** Body above {@code limits.maxBodyBytes}: 413. */
  record TooLarge(String message) implements RoutingFailure {}

  /** A model this router does not serve: 404. */
  record UnknownModel(String message) implements RoutingFailure {}

  /** No routable worker (the message names the pool/role): 503. */
  record NoWorker(String message) implements RoutingFailure {}

  /** The worker(s) failed before the first byte, retries exhausted: 502. */
  record UpstreamFailed(String message) implements RoutingFailure {}

  /** The worker did not answer in time: 504. */
  record UpstreamTimeout(String message) implements RoutingFailure {}

  /** The router is shutting down: 503. */
  record ShuttingDown(String message) implements RoutingFailure {}

  /** Unknown path or method: 404 / 405. */
  record NotFound(String message) implements RoutingFailure {}

  /** A bug: 500 (logged with the request id). */
  record Internal(String message) implements RoutingFailure {}
}
