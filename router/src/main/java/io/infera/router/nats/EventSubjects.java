package io.infera.router.nats;

import io.infera.router.kv.WorkerId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/**
 * Subjects on NATS (docs/contracts.md, "NATS event plane"): event subjects {@code
 * <prefix>.<token>.<rank>} with {@code token} = base64url without padding of the worker id, the
 * load-sharing subject, and the stream's default names and limits. Snapshot keys are {@link
 * NatsKeys}, headers {@link NatsHeaders}.
 */
public final class EventSubjects {

  public static final String DEFAULT_PREFIX = "infera.kv.events";
  public static final String DEFAULT_STREAM = "INFERA_KV_EVENTS";
  public static final String DEFAULT_BUCKET = "infera_kv_snapshots";

  /** Stream limits: retention by limits, discard old, file storage. */
  public static final Duration STREAM_MAX_AGE = Duration.ofHours(1);

  public static final long STREAM_MAX_BYTES = 256L << 20;

  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();

  /** A parsed event subject. */
  public record Source(WorkerId worker, int rank) {}

  private EventSubjects() {}

  /** The subject token of a worker id. */
  public static String token(WorkerId worker) {
    return B64.encodeToString(worker.value().getBytes(StandardCharsets.UTF_8));
  }

  /** {@code <prefix>.<token>.<rank>}. */
  public static String subject(String prefix, WorkerId worker, int rank) {
    if (rank < 0) {
      throw new IllegalArgumentException("rank must be >= 0");
    }
    return prefix + "." + token(worker) + "." + rank;
  }

  /** {@code <prefix>.>}: every event subject, what the stream holds. */
  public static String wildcard(String prefix) {
    return prefix + ".>";
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
   * The worker and rank of an event subject.
   *
   * @throws IllegalArgumentException naming what is wrong with it
   */
  public static Source parse(String prefix, String subject) {
    if (subject == null || !subject.startsWith(prefix + ".")) {
      throw new IllegalArgumentException("subject '" + subject + "' is not under " + prefix);
    }
    String rest = subject.substring(prefix.length() + 1);
    int dot = rest.indexOf('.');
    if (dot <= 0 || dot == rest.length() - 1 || rest.indexOf('.', dot + 1) >= 0) {
      throw new IllegalArgumentException(
          "subject '" + subject + "' is not " + prefix + ".<worker token>.<rank>");
    }
    String worker;
    try {
      worker = new String(B64D.decode(rest.substring(0, dot)), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "subject '" + subject + "': worker token is not base64url", e);
    }
    int rank;
    try {
      rank = Integer.parseInt(rest.substring(dot + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("subject '" + subject + "': rank is not a number", e);
    }
    if (rank < 0 || worker.isEmpty()) {
      throw new IllegalArgumentException("subject '" + subject + "': bad worker or rank");
    }
    return new Source(WorkerId.of(worker), rank);
  }
}
