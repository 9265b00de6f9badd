package io.infera.router.routing;

/**
 * Every way a request can fail in the router. Each failure carries its {@link Kind}; the HTTP layer
 * maps kinds to statuses and OpenAI error types in one exhaustive switch (and nowhere else), so a
 * new kind cannot silently become a 500.
 */
public sealed interface RoutingFailure {

  /** What went wrong, one constant per failure record. */
  enum Kind {
    /** Malformed JSON or missing/invalid fields. */
    BAD_REQUEST,
    /** Body above {@code limits.maxBodyBytes}. */
    TOO_LARGE,
    /** A model this router does not serve. */
    UNKNOWN_MODEL,
    /** Unknown path or method. */
    NOT_FOUND,
    /** No routable worker. */
    NO_WORKER,
    /** The router is shutting down. */
    SHUTTING_DOWN,
    /** The local tokenizer's files are not there (yet). */
    TOKENIZER_UNAVAILABLE,
    /** The worker(s) failed before the first byte, retries exhausted. */
    UPSTREAM_FAILED,
    /** The worker did not answer in time. */
    UPSTREAM_TIMEOUT,
    /** The global analysis budget (bytes, threads, queue) is full. */
    ANALYSIS_BUDGET_FULL,
    /** The client closed the connection before the request was answered (nothing is sent). */
    CLIENT_GONE,
    /** A bug (logged with the request id). */
    INTERNAL,
    /** {@code limits.maxInFlight} API requests are already under way. */
    OVERLOADED,
    /** The admin port's bearer token is missing or wrong. */
    UNAUTHORIZED,
    /** More request headers than the server accepts. */
    HEADERS_TOO_LARGE
  }

  /** Which failure this is. */
  Kind kind();

  /** Human-readable message for the client. */
  String message();

  /** Malformed JSON or missing/invalid fields: 400. */
  record BadRequest(String message, String param) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.BAD_REQUEST;
    }
  }

  /** Body above {@code limits.maxBodyBytes}: 413. */
  record TooLarge(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.TOO_LARGE;
    }
  }

  /** A model this router does not serve: 404. */
  record UnknownModel(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.UNKNOWN_MODEL;
    }
  }

  /** No routable worker (the message names the pool/role and why each worker is out): 503. */
  record NoWorker(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.NO_WORKER;
    }
  }

  /** The worker(s) failed before the first byte, retries exhausted: 502. */
  record UpstreamFailed(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.UPSTREAM_FAILED;
    }
  }

  /** The worker did not answer in time: 504. */
  record UpstreamTimeout(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.UPSTREAM_TIMEOUT;
    }
  }

  /** The router is shutting down: 503. */
  record ShuttingDown(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.SHUTTING_DOWN;
    }
  }

  /** The local tokenizer is not loaded; the message names the file looked for: 503. */
  record TokenizerUnavailable(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.TOKENIZER_UNAVAILABLE;
    }
  }

  /** The global analysis budget is full ({@link AnalysisBudget}): 429. */
  record AnalysisBudgetFull(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.ANALYSIS_BUDGET_FULL;
    }
  }

  /** The client left before its analysis ran; nothing reaches it (499 in logs). */
  record ClientGone(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.CLIENT_GONE;
    }
  }

  /** Unknown path or method: 404. */
  record NotFound(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.NOT_FOUND;
    }
  }

  /** A bug: 500 (logged with the request id). */
  record Internal(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.INTERNAL;
    }
  }

  /** {@code limits.maxInFlight} requests are under way: 503 with {@code Retry-After}. */
  record Overloaded(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.OVERLOADED;
    }
  }

  /** The admin port's bearer token is missing or wrong: 401 with {@code WWW-Authenticate}. */
  record Unauthorized(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.UNAUTHORIZED;
    }
  }

  /** Too many request headers: 431. */
  record HeadersTooLarge(String message) implements RoutingFailure {
    @Override
    public Kind kind() {
      return Kind.HEADERS_TOO_LARGE;
    }
  }
}
