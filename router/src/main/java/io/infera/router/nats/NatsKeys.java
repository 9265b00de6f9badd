package io.infera.router.nats;

import io.infera.router.kv.WorkerId;

/**
 * Keys of the snapshot bucket (docs/contracts.md, "NATS event plane"): {@code <token>.<rank>}, an
 * event subject without its prefix, so a key and a subject name the same source.
 */
public final class NatsKeys {

  // Any one-token prefix: a key is an event subject without its prefix.
  private static final String KEY_PREFIX = "k";

  private NatsKeys() {}

  /** {@code <token>.<rank>}: the source's key in the snapshot bucket. */
  public static String snapshotKey(WorkerId worker, int rank) {
    return EventSubjects.token(worker) + "." + rank;
  }

  /**
   * The source of a snapshot key {@code <token>.<rank>} (see {@link #snapshotKey}).
   *
   * @throws IllegalArgumentException naming what is wrong with the key
   */
  public static EventSubjects.Source parseKey(String key) {
    try {
      return EventSubjects.parse(KEY_PREFIX, KEY_PREFIX + "." + key);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "snapshot key '" + key + "' is not <worker token>.<rank>", e);
    }
  }
}
