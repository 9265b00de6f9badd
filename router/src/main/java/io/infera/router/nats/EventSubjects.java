package io.infera.router.nats;

import io.infera.router.kv.WorkerId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * Subjects on NATS (docs/contracts.md, "NATS event plane"): event subjects {@code
 * <prefix>.<pool>.<token>.<rank>} with {@code token} = base64url without padding of the worker id,
 * the load-sharing subject, and the stream's default names and limits. The pool token lets the
 * server scope a relay's credentials to its pool (worker ids are pod names, unknown in advance);
 * routers check that the worker is a discovered member of that pool. Snapshot keys are {@link
 * NatsKeys}, headers {@link NatsHeaders}.
 */
public final class EventSubjects {

  public static final String DEFAULT_PREFIX = "infera.kv.events";
  public static final String DEFAULT_STREAM = "INFERA_KV_EVENTS";
  public static final String DEFAULT_BUCKET = "infera_kv_snapshots";

  /** The pool of statically configured workers (and of a relay given no pool). */
  public static final String DEFAULT_POOL = "static";

  /** Longest pool token: a Kubernetes name label. */
  public static final int MAX_POOL_LENGTH = 63;

  /** Stream limits: retention by limits, discard old, file storage. */
  public static final Duration STREAM_MAX_AGE = Duration.ofHours(1);

  public static final long STREAM_MAX_BYTES = 256L << 20;

  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();

  /** A parsed event subject. */
  public record Source(String pool, WorkerId worker, int rank) {}

  private EventSubjects() {}

  /** The subject token of a worker id. */
  public static String token(WorkerId worker) {
    return B64.encodeToString(worker.value().getBytes(StandardCharsets.UTF_8));
  }

  /** {@code <prefix>.<pool>.<token>.<rank>}. */
  public static String subject(String prefix, String pool, WorkerId worker, int rank) {
    if (rank < 0) {
      throw new IllegalArgumentException("rank must be >= 0");
    }
    return prefix + "." + checkPool(pool) + "." + token(worker) + "." + rank;
  }

  /** {@code <prefix>.>}: every event subject, what the stream holds. */
  public static String wildcard(String prefix) {
    return prefix + ".>";
  }

  /** {@code <prefix>.<pool>.>}: the event subjects of one pool, what its relays may publish. */
  public static String poolWildcard(String prefix, String pool) {
    return prefix + "." + checkPool(pool) + ".>";
  }

  /** Whether {@code pool} can be a subject token: 1..63 of {@code [A-Za-z0-9_-]}. */
  public static boolean validPool(String pool) {
    if (pool == null || pool.isEmpty() || pool.length() > MAX_POOL_LENGTH) {
      return false;
    }
    for (int i = 0; i < pool.length(); i++) {
      char c = pool.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code pool}, when it can be a subject token.
   *
   * @throws IllegalArgumentException naming the pool otherwise
   */
  public static String checkPool(String pool) {
    if (!validPool(pool)) {
      throw new IllegalArgumentException(
          "pool '" + pool + "' must be 1-" + MAX_POOL_LENGTH + " letters, digits, '-' or '_'");
    }
    return pool;
  }

  /**
   * The core (non-stream) subject router replicas share in-flight load on: {@code <prefix
   * root>.load}, the root being the prefix's first token ({@code infera.load} by default), so it
   * never falls under the stream's {@code <prefix>.>}.
   */
  public static String loadSubject(String prefix) {
    int dot = prefix.indexOf('.');
    return (dot < 0 ? prefix : prefix.substring(0, dot)) + ".load";
  }

  /**
   * The pool, worker and rank of an event subject.
   *
   * @throws IllegalArgumentException naming what is wrong with it
   */
  public static Source parse(String prefix, String subject) {
    if (subject == null || !subject.startsWith(prefix + ".")) {
      throw new IllegalArgumentException("subject '" + subject + "' is not under " + prefix);
    }
    String rest = subject.substring(prefix.length() + 1);
    int d1 = rest.indexOf('.');
    int d2 = d1 < 0 ? -1 : rest.indexOf('.', d1 + 1);
    if (d1 <= 0 || d2 <= d1 + 1 || d2 == rest.length() - 1 || rest.indexOf('.', d2 + 1) >= 0) {
      throw new IllegalArgumentException(
          "subject '" + subject + "' is not " + prefix + ".<pool>.<worker token>.<rank>");
    }
    String pool = rest.substring(0, d1);
    if (!validPool(pool)) {
      throw new IllegalArgumentException("subject '" + subject + "': pool is not a pool name");
    }
    String worker;
    try {
      worker = new String(B64D.decode(rest.substring(d1 + 1, d2)), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "subject '" + subject + "': worker token is not base64url", e);
    }
    int rank;
    try {
      rank = Integer.parseInt(rest.substring(d2 + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("subject '" + subject + "': rank is not a number", e);
    }
    if (rank < 0 || worker.isEmpty()) {
      throw new IllegalArgumentException("subject '" + subject + "': bad worker or rank");
    }
    return new Source(pool, WorkerId.of(worker), rank);
  }
}
