package io.infera.router.events.nats;

import io.nats.client.KeyValue;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatchOption;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.impl.NatsKeyValueWatchSubscription;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The snapshot bucket as a metadata-only watch sees it: the newest revision and write time of each
 * key (for snapshot ages and repairs) and the newest revision of all. Written by jnats's threads
 * and the consumer thread, read by any thread.
 */
final class SnapshotWatch {

  /** A key's newest snapshot. */
  record Meta(long revision, long createdMillis) {}

  private final Map<String, Meta> latest = new ConcurrentHashMap<>();
  private final AtomicLong maxRevision = new AtomicLong();

  /** The key's newest snapshot, or null when it has none (or the watch is not running). */
  Meta latest(String key) {
    return latest.get(key);
  }

  /** The newest revision seen in the bucket. */
  long maxRevision() {
    return maxRevision.get();
  }

  /** A revision read from the bucket directly. */
  void saw(long revision) {
    maxRevision.accumulateAndGet(revision, Math::max);
  }

  /** Starts watching every key of {@code kv}; unsubscribe the result to stop. */
  NatsKeyValueWatchSubscription start(KeyValue kv) throws Exception {
    KeyValueWatcher watcher =
        new KeyValueWatcher() {
          @Override
          public void watch(KeyValueEntry e) {
            if (e.getOperation() == KeyValueOperation.PUT) {
              latest.put(
                  e.getKey(), new Meta(e.getRevision(), e.getCreated().toInstant().toEpochMilli()));
            } else {
              latest.remove(e.getKey());
            }
            saw(e.getRevision());
          }

          @Override
          public void endOfData() {}
        };
    return kv.watchAll(watcher, KeyValueWatchOption.META_ONLY);
  }
}
