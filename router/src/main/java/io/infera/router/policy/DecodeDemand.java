package io.infera.router.policy;

import io.infera.router.kv.WorkerId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Decode input demand per decode target: the input tokens (× {@code n}) and the requests that are
 * reserved on it and not yet released (docs/routing.md, "Decode input demand"). Every reservation
 * is released exactly once, whichever path ends its request; extra releases are ignored.
 *
 * <p>A worker that leaves discovery is {@linkplain #forget forgotten}: its entries leave the table,
 * but each live reservation keeps the entry it was taken on, so its late release subtracts from
 * that detached entry and never from a new one created when the worker comes back. Thread-safe; one
 * short monitor guards the table and every entry.
 */
public final class DecodeDemand {

  /** A target's demand at one moment. */
  public record Load(long tokens, int requests) {
    public static final Load IDLE = new Load(0, 0);
  }

  private final Map<DemandTarget, Entry> entries = new HashMap<>();

  /** The demand reserved on {@code target} now ({@link Load#IDLE} when none). */
  public synchronized Load load(DemandTarget target) {
    Entry e = entries.get(target);
    return e == null ? Load.IDLE : new Load(e.tokens, e.requests);
  }

  /** Every target with an entry (its demand may have fallen back to 0), in no order. */
  public synchronized List<DemandTarget> targets() {
    return new ArrayList<>(entries.keySet());
  }

  /**
   * Reserves {@code tokens} on {@code target}. The caller holds the reservation and releases it
   * when the request ends.
   *
   * @param tokens the request's demand ({@link InputTokens#demand()}), >= 0
   */
  public synchronized Reservation reserve(DemandTarget target, long tokens) {
    if (tokens < 0) {
      throw new IllegalArgumentException("tokens must be >= 0, got " + tokens);
    }
    Entry e = entries.computeIfAbsent(target, t -> new Entry());
    e.tokens += tokens;
    e.requests++;
    return new Reservation(target, tokens, e);
  }

  /**
   * A worker left discovery: its targets' entries leave the table (its reservations still release
   * into them, unseen). Returns the targets removed.
   */
  public synchronized List<DemandTarget> forget(WorkerId worker) {
    List<DemandTarget> gone = new ArrayList<>();
    entries
        .keySet()
        .removeIf(
            t -> {
              if (t.worker().equals(worker)) {
                gone.add(t);
                return true;
              }
              return false;
            });
    return gone;
  }

  private synchronized void release(Entry e, long tokens) {
    e.tokens -= tokens;
    e.requests--;
  }

  /** One target's totals; guarded by the table's monitor. */
  private static final class Entry {
    long tokens;
    int requests;
  }

  /** One request's demand on its decode target; only the first {@link #release} counts. */
  public final class Reservation implements AutoCloseable {
    private final DemandTarget target;
    private final long tokens;
    private final Entry entry;
    private final AtomicBoolean open = new AtomicBoolean(true);

    private Reservation(DemandTarget target, long tokens, Entry entry) {
      this.target = target;
      this.tokens = tokens;
      this.entry = entry;
    }

    public DemandTarget target() {
      return target;
    }

    public long tokens() {
      return tokens;
    }

    public boolean isOpen() {
      return open.get();
    }

    /** Releases the demand; returns true only for the call that did. */
    public boolean release() {
      if (open.compareAndSet(true, false)) {
        DecodeDemand.this.release(entry, tokens);
        return true;
      }
      return false;
    }

    @Override
    public void close() {
      release();
    }
  }
}
