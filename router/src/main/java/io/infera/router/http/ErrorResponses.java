package io.infera.router.http;

import io.infera.router.json.Json;
import io.infera.router.routing.RoutingFailure;
import io.vertx.core.http.HttpServerResponse;
import java.util.LinkedHashMap;
import java.util.Map;

/** The one place that turns a {@link RoutingFailure} into an HTTP status and OpenAI error body. */
public final class ErrorResponses {

  private ErrorResponses() {}

  /** The HTTP status of a failure. */
  public static int status(RoutingFailure f) {
    if (f instanceof RoutingFailure.BadRequest) {
      return 400;
    } else if (f instanceof RoutingFailure.TooLarge) {
      return 413;
    } else if (f instanceof RoutingFailure.UnknownModel) {
      return 404;
    } else if (f instanceof RoutingFailure.NotFound) {
      return 404;
    } else if (f instanceof RoutingFailure.NoWorker || f instanceof RoutingFailure.ShuttingDown) {
      return 503;
    } else if (f instanceof RoutingFailure.UpstreamFailed) {
      return 502;
    } else if (f instanceof RoutingFailure.UpstreamTimeout) {
      return 504;
    }
    return 500;
  }

  /** The OpenAI-shaped body {@code {"error":{"message","type","param","code"}}}. */
  public static String body(RoutingFailure f) {
    Map<String, Object> err = new LinkedHashMap<>();
    err.put("message", f.message());
    String type;
    String code;
    if (f instanceof RoutingFailure.BadRequest b) {
      type = "invalid_request_error";
      code = null;
      err.put("param", b.param());
    } else if (f instanceof RoutingFailure.TooLarge) {
      type = "invalid_request_error";
      code = "request_too_large";
    } else if (f instanceof RoutingFailure.UnknownModel) {
      type = "invalid_request_error";
      code = "model_not_found";
    } else if (f instanceof RoutingFailure.NotFound) {
      type = "invalid_request_error";
      code = "not_found";
    } else if (f instanceof RoutingFailure.NoWorker) {
      type = "service_unavailable";
      code = "no_routable_worker";
    } else if (f instanceof RoutingFailure.ShuttingDown) {
      type = "service_unavailable";
      code = "shutting_down";
    } else if (f instanceof RoutingFailure.UpstreamFailed) {
      type = "upstream_error";
      code = "worker_failed";
    } else if (f instanceof RoutingFailure.UpstreamTimeout) {
      type = "upstream_error";
      code = "worker_timeout";
    } else {
      type = "server_error";
      code = "internal_error";
    }
    err.putIfAbsent("param", null);
    err.put("type", type);
    err.put("code", code);
    return Json.write(Map.of("error", err));
  }

  /** Sends the failure unless the response has already started. */
  public static void send(HttpServerResponse resp, RoutingFailure f, String requestId) {
    if (resp.headWritten() || resp.ended() || resp.closed()) {
      return;
    }
    resp.setStatusCode(status(f))
        .putHeader("content-type", "application/json")
        .putHeader("x-request-id", requestId)
        .end(body(f));
  }
}
