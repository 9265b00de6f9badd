package io.infera.router.policy;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The distinct blocks of a worker's in-flight bookings; not thread-safe.
 *
 * <p>Every booking is a request's chain of router block hashes from its first block, and a block
 * hash stands for its whole prefix (it is computed from its parent's), so two bookings that share a
 * block share every block before it. The blocks held are then the nodes of the trie of the held
 * chains, and their number is kept without touching every block: with the chains sorted
 * lexicographically, distinct blocks = Σ lengths − Σ longest common prefixes of neighbours. A
 * booking changes that sum at its place in the order only ({@code O(log n)} comparisons, each one
 * vectorised {@link Arrays#mismatch}), instead of a hash-table insert per block (a 2,000-block
 * prompt cost about 12 µs per pick that way). For arrays that are not hash chains the count is that
 * of distinct prefixes, which is what a chain's blocks are.
 */
final class BlockCounts {

  private static final Comparator<long[]> LEXICOGRAPHIC = BlockCounts::compare;

  // Each held chain, with how many bookings hold an equal one.
  private final TreeMap<long[], Integer> chains = new TreeMap<>(LEXICOGRAPHIC);
  private long distinct;

  /** Holds one more booking of {@code blocks} (a chain from the request's first block). */
  void addAll(long[] blocks) {
    if (blocks.length == 0) {
      return;
    }
    Integer held = chains.get(blocks);
    if (held != null) {
      chains.put(blocks, held + 1); // an equal chain adds no block
      return;
    }
    distinct += contribution(blocks);
    chains.put(blocks, 1);
  }

  /**
   * Releases one booking of {@code blocks}: what one earlier {@link #addAll} was given (a booking's
   * release); a chain that is not held is ignored.
   */
  void removeAll(long[] blocks) {
    if (blocks.length == 0) {
      return;
    }
    Map.Entry<long[], Integer> e = chains.ceilingEntry(blocks);
    if (e == null || compare(e.getKey(), blocks) != 0) {
      return;
    }
    if (e.getValue() > 1) {
      chains.put(e.getKey(), e.getValue() - 1);
      return;
    }
    chains.remove(e.getKey());
    distinct -= contribution(blocks);
  }

  long distinct() {
    return distinct;
  }

  /**
   * The blocks {@code s} adds to the held chains without it: its length less what it shares with
   * its neighbours in order, plus what they shared with each other (now counted through {@code s}).
   */
  private long contribution(long[] s) {
    long[] lower = chains.lowerKey(s);
    long[] higher = chains.higherKey(s);
    long c = s.length;
    if (lower != null) {
      c -= commonPrefix(lower, s);
    }
    if (higher != null) {
      c -= commonPrefix(s, higher);
    }
    if (lower != null && higher != null) {
      c += commonPrefix(lower, higher);
    }
    return c;
  }

  private static int commonPrefix(long[] a, long[] b) {
    int m = Arrays.mismatch(a, b);
    return m < 0 ? a.length : m;
  }

  /** Lexicographic: by the first differing block, a chain before its extensions. */
  private static int compare(long[] a, long[] b) {
    int m = Arrays.mismatch(a, b);
    if (m < 0) {
      return 0;
    }
    if (m == a.length || m == b.length) {
      return Integer.compare(a.length, b.length);
    }
    return Long.compare(a[m], b[m]);
  }
}
