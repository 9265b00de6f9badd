package io.infera.sim.engine;

import io.infera.router.kv.KvEvent;
import io.infera.sim.kvcache.BlockManager;
import io.infera.sim.kvcache.KvEventListener;
import io.infera.sim.sched.CostModel;
import io.infera.sim.sched.EngineConfig;
import io.infera.sim.sched.EngineCore;
import io.infera.sim.sched.EngineEvent;
import io.infera.sim.sched.SimRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One data-parallel rank: its {@link EngineCore}, {@link BlockManager} and the thread that drives
 * them in (sped-up) real time.
 *
 * <p>Threading: the loop thread ({@code sim-engine-<port>-r<rank>}) is the only thread that touches
 * the core, the block manager, the in-flight request table and the KV-event buffer. Other threads
 * talk to it through an inbox of tasks ({@link #submit}, {@link #cancel}, {@link #call}), which it
 * runs between steps — never while a step is planned but not completed, so whatever a task reads is
 * consistent with the KV events published so far. {@link #stats()} is a snapshot published after
 * every turn.
 *
 * <p>Each turn: run queued tasks; {@code step = core.schedule(now)}; sleep {@code step.durationMs()
 * / speedup}; {@code core.complete(step)}; publish the turn's KV events as one batch; hand each
 * request its events. Virtual time is real elapsed time × speedup.
 */
final class EngineLoop implements KvEventListener {

  private static final Logger log = LoggerFactory.getLogger(EngineLoop.class);
  private static final long IDLE_WAIT_MS = 200;

  private final int rank;
  private final Flavor flavor;
  private final double speedup;
  private final int blockSize;
  private final KvEventPublisher publisher;
  private final EngineCore core;
  private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
  private final Thread thread;
  private final LongSupplier nanoTime;
  private final long originNanos;

  // Loop-thread state.
  private final Map<String, RequestSink> sinks = new HashMap<>();
  private final List<KvEvent> pendingEvents = new ArrayList<>();

  private volatile boolean running = true;
  private volatile EngineCore.Stats stats;
  private volatile long kvBatches;
  private volatile long errors;
  // Engine-clock slip: simulated ms by which steps completed after their scheduled end (the host
  // could not keep up with the speedup), and simulated ms of step time scheduled. Loop thread.
  private volatile double slipMs;
  private volatile double stepMs;

  /**
   * @param publisher this rank's publisher, or null when events are off
   */
  EngineLoop(int rank, EngineOptions o, KvEventPublisher publisher) {
    this(rank, o, publisher, System::nanoTime);
  }

  /**
   * @param nanoTime the wall clock the engine clock runs {@code speedup} times faster than
   */
  EngineLoop(int rank, EngineOptions o, KvEventPublisher publisher, LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.originNanos = nanoTime.getAsLong();
    this.rank = rank;
    this.flavor = o.flavor();
    this.speedup = o.speedup();
    this.blockSize = o.blockSize();
    this.publisher = publisher;
    this.core =
        new EngineCore(
            new EngineConfig(o.maxNumSeqs(), o.maxNumBatchedTokens(), CostModel.defaults()),
            new BlockManager(o.numBlocks(), o.blockSize(), o.hashSeed(), this));
    this.stats = core.stats();
    this.thread = new Thread(this::run, "sim-engine-r" + rank);
    thread.setDaemon(true);
  }

  /** Starts the loop thread; tasks queued before run first. */
  void start(String threadName) {
    thread.setName(threadName);
    thread.start();
  }

  int rank() {
    return rank;
  }

  /** The core; owned by the loop thread (use {@link #call} from elsewhere). */
  EngineCore core() {
    return core;
  }

  /** The latest counters, published after every turn. Any thread. */
  EngineCore.Stats stats() {
    return stats;
  }

  /** KV-event batches handed to the publisher. Any thread. */
  long kvBatches() {
    return kvBatches;
  }

  /**
   * Simulated ms by which steps finished late (the host fell behind the speedup) per simulated ms
   * of step time; 0 when the host keeps up. Any thread.
   */
  double clockSlip() {
    double busy = stepMs;
    return busy <= 0 ? 0 : slipMs / busy;
  }

  /** Unexpected exceptions caught on the loop thread. Any thread. */
  long errors() {
    return errors;
  }

  /** The engine clock: real time since this loop was created, × speedup, in ms. */
  double nowMs() {
    return (nanoTime.getAsLong() - originNanos) / 1e6 * speedup;
  }

  /** Queues a request; its results go to {@code sink}. Any thread. */
  void submit(SimRequest request, RequestSink sink) {
    inbox.add(
        () -> {
          try {
            core.submit(request);
            sinks.put(request.id(), sink);
          } catch (IllegalArgumentException e) {
            sink.rejected(RequestSink.Rejection.DOES_NOT_FIT, e.getMessage());
          }
        });
  }

  /** Drops a request whose client went away; its blocks are released. Any thread. */
  void cancel(String requestId) {
    inbox.add(
        () -> {
          if (sinks.remove(requestId) != null) {
            core.cancel(requestId);
          }
        });
  }

  /** Runs {@code f} on the loop thread between steps. Any thread. */
  <T> CompletableFuture<T> call(Function<EngineCore, T> f) {
    CompletableFuture<T> out = new CompletableFuture<>();
    if (!running) {
      out.completeExceptionally(new IllegalStateException("engine rank " + rank + " is closed"));
      return out;
    }
    inbox.add(
        () -> {
          try {
            out.complete(f.apply(core));
          } catch (RuntimeException e) {
            out.completeExceptionally(e);
          }
        });
    return out;
  }

  // ---------------------------------------------------------------- KvEventListener (loop thread)

  @Override
  public void blockStored(
      long[] engineHashes, Long parentEngineHash, int[] tokenIds, String loraName) {
    pendingEvents.add(
        new KvEvent.BlockStored(
            engineHashes,
            parentEngineHash,
            tokenIds,
            blockSize,
            null,
            loraName,
            null,
            null,
            null,
            null));
  }

  @Override
  public void blockRemoved(long[] engineHashes) {
    pendingEvents.add(new KvEvent.BlockRemoved(engineHashes, null, null));
  }

  @Override
  public void allCleared() {
    pendingEvents.add(new KvEvent.AllBlocksCleared());
  }

  // ---------------------------------------------------------------- loop thread

  private void run() {
    log.info("engine rank started rank={} thread={} speedup={}", rank, thread.getName(), speedup);
    while (running) {
      try {
        turn();
      } catch (RuntimeException e) {
        errors++;
        log.error("engine loop error rank={}", rank, e);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
    }
    failPending("engine is shutting down");
  }

  private void turn() {
    runTasks();
    EngineCore.Step step = core.schedule(nowMs());
    if (step == null) {
      endTurn(List.of());
      waitForWork();
      return;
    }
    sleepUntil(step.endMs());
    slipMs += Math.max(0, nowMs() - step.endMs());
    stepMs += step.durationMs();
    endTurn(core.complete(step));
  }

  private void runTasks() {
    Runnable task;
    while ((task = inbox.poll()) != null) {
      task.run();
    }
  }

  private void waitForWork() {
    try {
      Runnable task = inbox.poll(IDLE_WAIT_MS, TimeUnit.MILLISECONDS);
      if (task != null) {
        task.run();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  /** Sleeps until the engine clock reads {@code virtualMs}. */
  private void sleepUntil(double virtualMs) {
    long deadline = originNanos + (long) (virtualMs / speedup * 1e6);
    long left;
    while ((left = deadline - nanoTime.getAsLong()) > 0 && running) {
      LockSupport.parkNanos(left);
    }
  }

  /** Publishes the turn's KV events as one batch, then hands out the step's request events. */
  private void endTurn(List<EngineEvent> events) {
    flushKvEvents();
    stats = core.stats();
    if (!events.isEmpty()) {
      dispatch(events);
    }
  }

  private void flushKvEvents() {
    if (pendingEvents.isEmpty()) {
      return;
    }
    if (publisher != null) {
      byte[] payload =
          KvEventEncoder.encode(flavor, System.currentTimeMillis() / 1000.0, pendingEvents, rank);
      publisher.publish(payload);
      kvBatches++;
    }
    pendingEvents.clear();
  }

  private void dispatch(List<EngineEvent> events) {
    Map<String, List<EngineEvent>> byRequest = new LinkedHashMap<>();
    for (EngineEvent e : events) {
      byRequest.computeIfAbsent(e.requestId(), k -> new ArrayList<>(3)).add(e);
    }
    for (Map.Entry<String, List<EngineEvent>> en : byRequest.entrySet()) {
      List<EngineEvent> list = en.getValue();
      boolean finished = list.get(list.size() - 1) instanceof EngineEvent.Finished;
      RequestSink sink = finished ? sinks.remove(en.getKey()) : sinks.get(en.getKey());
      if (sink != null) {
        sink.events(list);
      }
    }
  }

  private void failPending(String message) {
    runTasks();
    for (Map.Entry<String, RequestSink> e : sinks.entrySet()) {
      e.getValue().rejected(RequestSink.Rejection.SHUTTING_DOWN, message);
    }
    sinks.clear();
  }

  /** Stops the loop thread (tasks still queued are run first; live requests are rejected). */
  void close() {
    running = false;
    inbox.add(() -> {});
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.warn("engine loop did not stop rank={} thread={}", rank, thread.getName());
    } else {
      // Tasks queued while the thread exited: answer them here (the loop thread is gone).
      failPending("engine is shut down");
    }
  }
}
