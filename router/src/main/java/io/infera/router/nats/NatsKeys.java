package io.infera.router.nats;

import io.infera.router.kv.WorkerId;

/**
 * Keys of the snapshot bucket (docs/contracts.md, "NATS event plane"): {@code
 * <pool>.<token>.<rank>}, an event subject without its prefix, so a key and a subject name the same
 * source and a relay's credentials can be scoped to its pool's keys ({@link #poolKeySubjects}).
 */
public final class NatsKeys {

  // Any one-token prefix: a key is an event subject without its prefix.
  private static final String KEY_PREFIX = "k";

  private NatsKeys() {}

  /** {@code <pool>.<token>.<rank>}: the source's key in the snapshot bucket. */
  public static String snapshotKey(String pool, WorkerId worker, int rank) {
    return EventSubjects.checkPool(pool) + "." + EventSubjects.token(worker) + "." + rank;
  }

  /**
   * {@code $KV.<bucket>.<pool>.>}: the subjects a write of one of the pool's keys goes to, what the
   * pool's relays may publish to.
   */
  public static String poolKeySubjects(String bucket, String pool) {
    return "$KV." + bucket + "." + EventSubjects.checkPool(pool) + ".>";
  }

  /**
   * The source of a snapshot key {@code <pool>.<token>.<rank>} (see {@link #snapshotKey}).
   *
   * @throws IllegalArgumentException naming what is wrong with the key
   */
  public static EventSubjects.Source parseKey(String key) {
    try {
      return EventSubjects.parse(KEY_PREFIX, KEY_PREFIX + "." + key);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "snapshot key '" + key + "' is not <pool>.<worker token>.<rank>", e);
    }
  }
}
