package io.infera.router.relay;

import io.infera.router.events.Backoff;
import io.infera.router.kv.ViewSnapshot;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes snapshots to the bucket off the publishing thread: per rank the latest submitted snapshot
 * wins (an older one still waiting is dropped), and one rank's snapshots are written in submission
 * order, so the bucket's watermarks only go up. Failed writes are retried with back-off until a
 * newer snapshot replaces them.
 *
 * <p>Threading: {@link #submit}, {@link #written} and {@link #awaitIdle} from any thread; the
 * writes happen on {@value #THREAD_NAME}.
 */
final class SnapshotWriter implements AutoCloseable {

  static final String THREAD_NAME = "infera-relay-snapshots";

  private static final Logger log = LoggerFactory.getLogger(SnapshotWriter.class);

  private final StreamClient client;
  private final RelayOptions options;
  private final RelayCounters counters;
  private final Object lock = new Object();
  private final ViewSnapshot[] pending;
  private final long[] pendingId;
  private final long[] writtenId;
  private final long[] writtenWatermark;
  private long nextId;
  private int writing = -1;
  private int cursor;
  private boolean closed;
  private Thread thread;

  SnapshotWriter(StreamClient client, RelayOptions options, RelayCounters counters) {
    this.client = client;
    this.options = options;
    this.counters = counters;
    int n = options.dpSize();
    this.pending = new ViewSnapshot[n];
    this.pendingId = new long[n];
    this.writtenId = new long[n];
    this.writtenWatermark = new long[n];
  }

  synchronized void start() {
    if (thread == null) {
      thread = new Thread(this::run, THREAD_NAME);
      thread.setDaemon(true);
      thread.start();
    }
  }

  /** Queues a snapshot of {@code rank}; returns its id for {@link #written}. */
  long submit(int rank, ViewSnapshot snapshot) {
    synchronized (lock) {
      pending[rank] = snapshot;
      pendingId[rank] = ++nextId;
      lock.notifyAll();
      return nextId;
    }
  }

  /** Whether snapshot {@code id} of {@code rank} (or a newer one) is in the bucket. */
  boolean written(int rank, long id) {
    synchronized (lock) {
      return writtenId[rank] >= id;
    }
  }

  /** The watermark of the rank's last written snapshot (0 before the first). */
  long writtenWatermark(int rank) {
    synchronized (lock) {
      return writtenWatermark[rank];
    }
  }

  /** Waits until nothing is pending or being written; false on timeout. */
  boolean awaitIdle(long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    synchronized (lock) {
      while (busy()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
      }
      return true;
    }
  }

  private boolean busy() {
    if (writing >= 0) {
      return true;
    }
    for (ViewSnapshot s : pending) {
      if (s != null) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void close() {
    Thread t;
    synchronized (lock) {
      closed = true;
      lock.notifyAll();
      t = thread;
    }
    if (t != null) {
      try {
        t.join(options.publishTimeout().toMillis() + 1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void run() {
    Backoff backoff = new Backoff(options.reconnectWait(), options.reconnectWaitMax());
    // Failed writes (an error, or not connected) since the last success: the back-off attempt.
    int attempts = 0;
    int failuresInRow = 0;
    while (true) {
      int rank;
      ViewSnapshot snap;
      long id;
      synchronized (lock) {
        rank = next();
        while (rank < 0 && !closed) {
          try {
            lock.wait();
          } catch (InterruptedException e) {
            return;
          }
          rank = next();
        }
        if (rank < 0) {
          return;
        }
        snap = pending[rank];
        id = pendingId[rank];
        pending[rank] = null;
        writing = rank;
      }
      boolean ok = false;
      try {
        if (client.connected()) {
          byte[] bytes = snap.encode();
          long revision = client.putSnapshot(options.snapshotKey(rank), bytes);
          ok = true;
          failuresInRow = 0;
          attempts = 0;
          long n = counters.snapshotsWritten.incrementAndGet();
          if (n == 1) {
            log.info(
                "relay first snapshot written rank={} pairs={} stream_seq={} engine_seq={}"
                    + " bytes={} revision={}",
                rank,
                snap.size(),
                snap.streamSeq(),
                snap.engineSeq(),
                bytes.length,
                revision);
          } else {
            log.debug(
                "relay snapshot written rank={} pairs={} stream_seq={} bytes={} revision={}",
                rank,
                snap.size(),
                snap.streamSeq(),
                bytes.length,
                revision);
          }
        }
      } catch (Exception e) {
        long n = counters.snapshotFailures.incrementAndGet();
        failuresInRow++;
        if (failuresInRow == 1 || Long.bitCount(n) == 1) {
          log.warn(
              "relay snapshot write failed, retrying rank={} stream_seq={} pairs={} failures={}"
                  + " error={}",
              rank,
              snap.streamSeq(),
              snap.size(),
              n,
              e.toString());
        }
      }
      synchronized (lock) {
        writing = -1;
        if (ok) {
          writtenId[rank] = Math.max(writtenId[rank], id);
          writtenWatermark[rank] = Math.max(writtenWatermark[rank], snap.streamSeq());
        } else if (closed) {
          lock.notifyAll();
          return;
        } else if (pending[rank] == null) {
          // Not superseded meanwhile: try it again.
          pending[rank] = snap;
          pendingId[rank] = id;
        }
        lock.notifyAll();
        if (!ok && !closed) {
          try {
            lock.wait(backoff.delayMillis(++attempts));
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }
  }

  /** A rank with a pending snapshot, round-robin; -1 when none. Under the lock. */
  private int next() {
    for (int i = 0; i < pending.length; i++) {
      int r = (cursor + i) % pending.length;
      if (pending[r] != null) {
        cursor = r + 1;
        return r;
      }
    }
    return -1;
  }
}
