package io.infera.router.nats;

import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.KeyValueManagement;
import io.nats.client.api.DiscardPolicy;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.RetentionPolicy;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;

/**
 * Creates the event stream and the snapshot bucket when they are missing (docs/contracts.md, "NATS
 * event plane"); both the relay and the router call it, so either may start first. An existing
 * stream or bucket is left as it is (an operator may have tuned its limits).
 */
public final class JetStreamSetup {

  /** JetStream's "stream not found" / "bucket not found" API error code. */
  private static final int NOT_FOUND = 404;

  /**
   * The stream's limits.
   *
   * @param maxMessages 0 = unlimited (tests set a small value to force retention)
   */
  public record Limits(Duration maxAge, long maxBytes, long maxMessages) {

    public Limits {
      Objects.requireNonNull(maxAge, "maxAge");
      if (maxAge.isNegative() || maxAge.isZero()) {
        throw new IllegalArgumentException("stream maxAge must be > 0");
      }
      if (maxBytes <= 0) {
        throw new IllegalArgumentException("stream maxBytes must be > 0");
      }
      if (maxMessages < 0) {
        throw new IllegalArgumentException("stream maxMessages must be >= 0 (0 = unlimited)");
      }
    }

    /** 1 h, 256 MiB, no message limit. */
    public static Limits defaults() {
      return new Limits(EventSubjects.STREAM_MAX_AGE, EventSubjects.STREAM_MAX_BYTES, 0);
    }
  }

  private JetStreamSetup() {}

  /** The stream configuration for {@code prefix}: limits retention, file storage, discard old. */
  public static StreamConfiguration streamConfig(String stream, String prefix, Limits limits) {
    StreamConfiguration.Builder b =
        StreamConfiguration.builder()
            .name(stream)
            .subjects(EventSubjects.wildcard(prefix))
            .retentionPolicy(RetentionPolicy.Limits)
            .storageType(StorageType.File)
            .discardPolicy(DiscardPolicy.Old)
            .maxAge(limits.maxAge())
            .maxBytes(limits.maxBytes());
    if (limits.maxMessages() > 0) {
      b.maxMessages(limits.maxMessages());
    }
    return b.build();
  }

  /** Creates the stream unless it exists; true when this call created it. */
  public static boolean ensureStream(Connection nc, String stream, String prefix, Limits limits)
      throws IOException, JetStreamApiException {
    JetStreamManagement jsm = nc.jetStreamManagement();
    try {
      jsm.getStreamInfo(stream);
      return false;
    } catch (JetStreamApiException e) {
      if (e.getErrorCode() != NOT_FOUND) {
        throw e;
      }
    }
    try {
      jsm.addStream(streamConfig(stream, prefix, limits));
      return true;
    } catch (JetStreamApiException e) {
      // Another relay or router created it between our look and our create: fine.
      jsm.getStreamInfo(stream);
      return false;
    }
  }

  /** Creates the snapshot bucket (one value per key, file storage) unless it exists. */
  public static boolean ensureBucket(Connection nc, String bucket)
      throws IOException, JetStreamApiException {
    KeyValueManagement kvm = nc.keyValueManagement();
    try {
      kvm.getStatus(bucket);
      return false;
    } catch (JetStreamApiException e) {
      if (e.getErrorCode() != NOT_FOUND) {
        throw e;
      }
    }
    try {
      kvm.create(
          KeyValueConfiguration.builder()
              .name(bucket)
              .maxHistoryPerKey(1)
              .storageType(StorageType.File)
              .build());
      return true;
    } catch (JetStreamApiException e) {
      kvm.getStatus(bucket);
      return false;
    }
  }
}
