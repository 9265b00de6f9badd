package io.infera.router.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The admin port's optional bearer token ({@code admin.tokenFile}, read once at start so a mounted
 * Secret works). A presented token is compared by its SHA-256 digest in constant time, so neither
 * its content nor its length shows in the time the check takes.
 */
final class AdminAuth {

  /** Longest token file read (a token is tens of bytes; this bounds a wrong mount). */
  static final int MAX_TOKEN_BYTES = 4096;

  private final byte[] digest;

  private AdminAuth(byte[] digest) {
    this.digest = digest;
  }

  /** No token: every admin request is let through. */
  static AdminAuth none() {
    return new AdminAuth(null);
  }

  /** A token given directly (tests). */
  static AdminAuth token(String token) {
    if (token.isEmpty()) {
      throw new IllegalArgumentException("empty admin token");
    }
    return new AdminAuth(sha256(token.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * The token in {@code file}: its content without surrounding whitespace (a trailing newline, as
   * {@code echo} writes it, is not part of the token).
   *
   * @throws IllegalStateException naming {@code admin.tokenFile} when the file cannot be read, is
   *     larger than {@value #MAX_TOKEN_BYTES} bytes, or holds only whitespace (the content itself
   *     is never in the message)
   */
  static AdminAuth fromFile(Path file) {
    byte[] raw;
    try {
      if (Files.size(file) > MAX_TOKEN_BYTES) {
        throw new IllegalStateException(
            "admin.tokenFile " + file + " is larger than " + MAX_TOKEN_BYTES + " bytes");
      }
      raw = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalStateException(
          "admin.tokenFile " + file + " cannot be read (" + e.getClass().getSimpleName() + ")", e);
    }
    String token = new String(raw, StandardCharsets.UTF_8).strip();
    if (token.isEmpty()) {
      throw new IllegalStateException("admin.tokenFile " + file + " is empty");
    }
    return token(token);
  }

  /** Whether a token is required. */
  boolean required() {
    return digest != null;
  }

  /** Whether an {@code Authorization} header value lets the request in. */
  boolean allows(String authorization) {
    if (digest == null) {
      return true;
    }
    if (authorization == null || authorization.length() > 7 + MAX_TOKEN_BYTES) {
      return false;
    }
    // RFC 6750: the scheme is case-insensitive, one space, then the token.
    if (authorization.length() < 8 || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    byte[] presented = authorization.substring(7).strip().getBytes(StandardCharsets.UTF_8);
    return MessageDigest.isEqual(digest, sha256(presented));
  }

  private static byte[] sha256(byte[] b) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(b);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
