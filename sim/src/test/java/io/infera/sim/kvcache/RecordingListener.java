package io.infera.sim.kvcache;

import io.infera.router.kv.BlockHasher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Records every KV event and replays it onto a model of the engine's cache the way a router does:
 * engine hash → router hash, re-hashing each stored block's tokens from its parent. Fails fast on a
 * store of a hash already held, a remove of an absent one, or a store under an unknown parent.
 */
final class RecordingListener implements KvEventListener {

  /** One event, as received. */
  sealed interface Event {}

  record Stored(long[] hashes, Long parent, int[] tokens, String lora) implements Event {}

  record Removed(long[] hashes) implements Event {}

  record Cleared() implements Event {}

  final List<Event> events = new ArrayList<>();
  final Map<Long, Long> engineToRouter = new HashMap<>();
  private final BlockHasher hasher;

  RecordingListener(int blockSize) {
    this.hasher = new BlockHasher(blockSize);
  }

  @Override
  public void blockStored(long[] engineHashes, Long parentEngineHash, int[] tokenIds, String lora) {
    events.add(new Stored(engineHashes, parentEngineHash, tokenIds, lora));
    if (engineHashes.length == 0 || tokenIds.length != engineHashes.length * hasher.pageSize()) {
      throw new AssertionError("malformed store " + Arrays.toString(engineHashes));
    }
    long router;
    if (parentEngineHash == null) {
      router = BlockHasher.firstParent(lora, null);
    } else {
      Long p = engineToRouter.get(parentEngineHash);
      if (p == null) {
        throw new AssertionError("store under an unknown parent " + parentEngineHash);
      }
      router = p;
    }
    for (int b = 0; b < engineHashes.length; b++) {
      router = hasher.hashBlock(router, tokenIds, b * hasher.pageSize());
      if (engineToRouter.putIfAbsent(engineHashes[b], router) != null) {
        throw new AssertionError("stored twice: " + engineHashes[b]);
      }
    }
  }

  @Override
  public void blockRemoved(long[] engineHashes) {
    events.add(new Removed(engineHashes));
    if (engineHashes.length == 0) {
      throw new AssertionError("empty remove");
    }
    for (long h : engineHashes) {
      if (engineToRouter.remove(h) == null) {
        throw new AssertionError("removed without a store: " + h);
      }
    }
  }

  @Override
  public void allCleared() {
    events.add(new Cleared());
    engineToRouter.clear();
  }

  /** Engine hashes held (stored minus removed), sorted as signed longs. */
  long[] engineHashes() {
    return engineToRouter.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
  }

  /** Router hashes held, sorted as unsigned longs. */
  long[] routerHashes() {
    return engineToRouter.values().stream()
        .mapToLong(Long::longValue)
        .map(h -> h ^ Long.MIN_VALUE)
        .sorted()
        .map(h -> h ^ Long.MIN_VALUE)
        .toArray();
  }

  <T extends Event> List<T> ofType(Class<T> type) {
    return events.stream().filter(type::isInstance).map(type::cast).toList();
  }

  void clear() {
    events.clear();
  }
}
