package io.infera.router.http;

import io.infera.router.json.Json;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.routing.RoutingFailure;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one place that turns a {@link RoutingFailure} into an HTTP status and an error body: OpenAI's
 * shape, or Anthropic's for the Messages endpoint ({@link Endpoint#anthropicErrors}).
 */
public final class ErrorResponses {

  private ErrorResponses() {}

  /** The HTTP status of a failure. */
  public static int status(RoutingFailure f) {
    return switch (f.kind()) {
      case BAD_REQUEST -> 400;
      case TOO_LARGE -> 413;
      case UNKNOWN_MODEL, NOT_FOUND -> 404;
      case NO_WORKER, SHUTTING_DOWN, TOKENIZER_UNAVAILABLE -> 503;
      case UPSTREAM_FAILED -> 502;
      case UPSTREAM_TIMEOUT -> 504;
      case ANALYSIS_BUDGET_FULL -> 429;
      case CLIENT_GONE -> 499;
      case INTERNAL -> 500;
      case OVERLOADED -> 503;
      case UNAUTHORIZED -> 401;
      case HEADERS_TOO_LARGE -> 431;
    };
  }

  /** The OpenAI error {@code type} of a failure. */
  static String type(RoutingFailure.Kind kind) {
    return switch (kind) {
      case BAD_REQUEST, TOO_LARGE, UNKNOWN_MODEL, NOT_FOUND -> "invalid_request_error";
      case NO_WORKER, SHUTTING_DOWN, TOKENIZER_UNAVAILABLE -> "service_unavailable";
      case UPSTREAM_FAILED, UPSTREAM_TIMEOUT -> "upstream_error";
      case ANALYSIS_BUDGET_FULL -> "rate_limit_exceeded";
      case CLIENT_GONE -> "client_closed_request";
      case INTERNAL -> "server_error";
      case OVERLOADED -> "service_unavailable";
      case UNAUTHORIZED -> "authentication_error";
      case HEADERS_TOO_LARGE -> "invalid_request_error";
    };
  }

  /** The OpenAI error {@code code} of a failure (null for a plain bad request). */
  static String code(RoutingFailure.Kind kind) {
    return switch (kind) {
      case BAD_REQUEST -> null;
      case TOO_LARGE -> "request_too_large";
      case UNKNOWN_MODEL -> "model_not_found";
      case NOT_FOUND -> "not_found";
      case NO_WORKER -> "no_routable_worker";
      case SHUTTING_DOWN -> "shutting_down";
      case TOKENIZER_UNAVAILABLE -> "tokenizer_unavailable";
      case UPSTREAM_FAILED -> "worker_failed";
      case UPSTREAM_TIMEOUT -> "worker_timeout";
      case ANALYSIS_BUDGET_FULL -> "analysis_budget_full";
      case CLIENT_GONE -> "client_gone";
      case INTERNAL -> "internal_error";
      case OVERLOADED -> "overloaded";
      case UNAUTHORIZED -> "invalid_token";
      case HEADERS_TOO_LARGE -> "headers_too_large";
    };
  }

  /** Anthropic's error {@code type} of a failure (its API's names for the same statuses). */
  static String anthropicType(RoutingFailure.Kind kind) {
    return switch (kind) {
      case BAD_REQUEST, HEADERS_TOO_LARGE -> "invalid_request_error";
      case TOO_LARGE -> "request_too_large";
      case UNKNOWN_MODEL, NOT_FOUND -> "not_found_error";
      case NO_WORKER, SHUTTING_DOWN, TOKENIZER_UNAVAILABLE, OVERLOADED -> "overloaded_error";
      case UPSTREAM_FAILED, UPSTREAM_TIMEOUT, INTERNAL, CLIENT_GONE -> "api_error";
      case ANALYSIS_BUDGET_FULL -> "rate_limit_error";
      case UNAUTHORIZED -> "authentication_error";
    };
  }

  /** Anthropic's error body {@code {"type":"error","error":{"type","message"}}}. */
  public static String anthropicBody(RoutingFailure f) {
    Map<String, Object> err = new LinkedHashMap<>();
    err.put("type", anthropicType(f.kind()));
    err.put("message", f.message());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("type", "error");
    out.put("error", err);
    return Json.write(out);
  }

  /** The body of a failure in the error shape of {@code endpoint} (null: OpenAI's). */
  public static String body(RoutingFailure f, Endpoint endpoint) {
    return endpoint != null && endpoint.anthropicErrors() ? anthropicBody(f) : body(f);
  }

  /** The OpenAI-shaped body {@code {"error":{"message","type","param","code"}}}. */
  public static String body(RoutingFailure f) {
    Map<String, Object> err = new LinkedHashMap<>();
    err.put("message", f.message());
    err.put("param", f instanceof RoutingFailure.BadRequest b ? b.param() : null);
    err.put("type", type(f.kind()));
    err.put("code", code(f.kind()));
    return Json.write(Map.of("error", err));
  }

  /**
   * Sends the failure in the error shape of the endpoint the request's path names (OpenAI's for
   * every other path), unless the response has already started.
   */
  public static void send(RoutingContext ctx, RoutingFailure f, String requestId) {
    send(ctx.response(), f, requestId, Endpoint.forPath(ctx.request().path()).orElse(null));
  }

  /** Sends the failure in OpenAI's shape unless the response has already started. */
  public static void send(HttpServerResponse resp, RoutingFailure f, String requestId) {
    send(resp, f, requestId, null);
  }

  /** Sends the failure in {@code endpoint}'s shape unless the response has already started. */
  public static void send(
      HttpServerResponse resp, RoutingFailure f, String requestId, Endpoint endpoint) {
    if (resp.headWritten() || resp.ended() || resp.closed()) {
      return;
    }
    resp.setStatusCode(status(f));
    switch (f.kind()) {
      case OVERLOADED, ANALYSIS_BUDGET_FULL -> resp.putHeader("retry-after", "1");
      case UNAUTHORIZED -> resp.putHeader("www-authenticate", "Bearer realm=\"infera-admin\"");
      default -> {}
    }
    resp.putHeader("content-type", "application/json")
        .putHeader("x-request-id", requestId)
        .end(body(f, endpoint));
  }
}
