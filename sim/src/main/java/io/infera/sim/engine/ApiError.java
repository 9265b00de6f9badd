package io.infera.sim.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A request the simulated engine refuses, rendered as vLLM's OpenAI-shaped error body {@code
 * {"error": {"message", "type", "param", "code"}}}.
 */
final class ApiError extends Exception {

  private final int status;
  private final String type;
  private final String param;

  ApiError(int status, String type, String message, String param) {
    super(message, null, false, false);
    this.status = status;
    this.type = type;
    this.param = param;
  }

  static ApiError badRequest(String message, String param) {
    return new ApiError(400, "BadRequestError", message, param);
  }

  static ApiError notFound(String message) {
    return new ApiError(404, "NotFoundError", message, null);
  }

  static ApiError internal(String message) {
    return new ApiError(500, "InternalServerError", message, null);
  }

  int status() {
    return status;
  }

  /**
   * The body vLLM's Anthropic front end writes for the same error: {@code {"type": "error",
   * "error": {"type", "message"}}}, the type being the engine's error name.
   */
  Map<String, Object> anthropicBody() {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("type", type);
    e.put("message", getMessage());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("type", "error");
    out.put("error", e);
    return out;
  }

  /** The JSON body. */
  Map<String, Object> body() {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("message", getMessage());
    e.put("type", type);
    e.put("param", param);
    e.put("code", status);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("error", e);
    return out;
  }
}
