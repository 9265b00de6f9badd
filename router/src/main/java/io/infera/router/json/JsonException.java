package io.infera.router.json;

/** Input that is not valid JSON (or too deep or too large); the message says where. */
public final class JsonException extends Exception {
  public JsonException(String message) {
    super(message, null, false, false);
  }
}
