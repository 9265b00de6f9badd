package io.infera.router.policy;

import io.infera.router.kv.LongLongMap;

/** A multiset of block hashes that knows how many distinct ones it holds; not thread-safe. */
final class BlockCounts {

  private final LongLongMap counts = new LongLongMap();

  void add(long block) {
    counts.addTo(block, 1);
  }

  void remove(long block) {
    if (counts.containsKey(block)) {
      counts.addTo(block, -1);
    }
  }

  long distinct() {
    return counts.size();
  }
}
