package io.infera.router.policy;

import io.infera.router.kv.LongLongMap;

/**
 * A multiset of block hashes that knows how many distinct ones it holds; not thread-safe. A booking
 * adds and its release removes a whole prompt's blocks at once (thousands), so the table is sized
 * once before the adds and shrunk once after the removals, not step by step.
 */
final class BlockCounts {

  private final LongLongMap counts = new LongLongMap();
  // Blocks held counting repeats: a release of everything held empties the table in one step.
  private long held;

  void addAll(long[] blocks) {
    held += blocks.length;
    counts.ensureCapacity(counts.size() + blocks.length);
    for (long b : blocks) {
      counts.addTo(b, 1);
    }
  }

  /**
   * Removes one of each block: {@code blocks} is what one earlier {@link #addAll} was given (a
   * booking's release); a block that is not held is ignored.
   */
  void removeAll(long[] blocks) {
    if (held == blocks.length) {
      // Holding as many blocks as this booking has, this booking is all that is left (the common
      // case of an idle worker): empty the table instead of removing entry by entry.
      counts.clear();
      held = 0;
      return;
    }
    for (long b : blocks) {
      int slot = counts.find(b);
      if (slot < 0) {
        continue;
      }
      held--;
      long v = counts.valueAt(slot) - 1;
      if (v == 0) {
        counts.removeAtKeepingCapacity(slot);
      } else {
        counts.setValueAt(slot, v);
      }
    }
    counts.trim();
  }

  long distinct() {
    return counts.size();
  }
}
