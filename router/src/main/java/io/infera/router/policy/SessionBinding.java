package io.infera.router.policy;

import io.infera.router.kv.WorkerId;

/**
 * Where one session goes (docs/routing.md, "Session affinity"): its prefill-side worker (the mixed
 * or prefill one) and, under {@code both}, its decode worker and the data-parallel ranks.
 *
 * @param first the prefill-side worker, or null when only the decode side is bound
 * @param firstRank the first worker's bound rank, or {@link #NO_RANK} (the cache chooses it)
 * @param decode the decode worker, or null when the decode side is not bound
 * @param decodeRank the decode worker's bound rank, or {@link #NO_RANK}
 * @param version orders changes of this session's binding across replicas: every change is one
 *     higher than the binding it replaces ({@code 1..MAX_VERSION})
 * @param origin the replica that made this version (ties of equal versions go to the lower id)
 */
public record SessionBinding(
    WorkerId first, int firstRank, WorkerId decode, int decodeRank, long version, long origin) {

  /** No rank bound. */
  public static final int NO_RANK = -1;

  /** Highest data-parallel rank a binding may name. */
  public static final int MAX_RANK = 65_535;

  /** Highest version (far above what replacements reach; caps forged ones). */
  public static final long MAX_VERSION = 1L << 40;

  public SessionBinding {
    if (first == null && decode == null) {
      throw new IllegalArgumentException("a binding names a first or a decode worker");
    }
    checkRank(firstRank, first);
    checkRank(decodeRank, decode);
    if (version < 1 || version > MAX_VERSION) {
      throw new IllegalArgumentException("version must be in [1, 2^40], got " + version);
    }
  }

  private static void checkRank(int rank, WorkerId worker) {
    if (rank < NO_RANK || rank > MAX_RANK || (worker == null && rank != NO_RANK)) {
      throw new IllegalArgumentException("rank " + rank + " for worker " + worker);
    }
  }

  /** Whether {@code other} supersedes this binding: a higher version, or equal and lower origin. */
  public boolean supersededBy(SessionBinding other) {
    return other.version > version
        || (other.version == version && Long.compareUnsigned(other.origin, origin) < 0);
  }

  /** The next version with the prefill-side target set, made by {@code replica}. */
  public SessionBinding withFirst(WorkerId worker, int rank, long replica) {
    return new SessionBinding(worker, rank, decode, decodeRank, next(), replica);
  }

  /** The next version with the decode-side target set, made by {@code replica}. */
  public SessionBinding withDecode(WorkerId worker, int rank, long replica) {
    return new SessionBinding(first, firstRank, worker, rank, next(), replica);
  }

  private long next() {
    return Math.min(MAX_VERSION, version + 1);
  }
}
