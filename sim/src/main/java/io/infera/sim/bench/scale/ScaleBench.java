package io.infera.sim.bench.scale;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.Role;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.kv.WorkerId;
import io.infera.router.policy.LoadTracker;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestRouter;
import io.infera.router.routing.RoutePlan;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The index at fleet scale: per fleet size and entry count, the build's apply rate, heap per entry,
 * and {@code match} and pick (hashing excluded, as {@code RouterPickBench}) latencies for prompts
 * of several lengths, each timed call by call after a warm-up. Single-threaded: the apply rate is
 * one core's.
 */
public final class ScaleBench {

  /** One measured point. */
  public record Point(
      int workers,
      long entries,
      boolean shared,
      int promptBlocks,
      double applyBlocksPerSecond,
      double bytesPerEntry,
      double matchP50Us,
      double matchP99Us,
      double pickP50Us,
      double pickP99Us) {}

  /** Timed calls per measurement after {@link #WARMUP} untimed ones. */
  static final int SAMPLES = 4_000;

  static final int WARMUP = 2_000;

  private ScaleBench() {}

  /**
   * The heap an index of {@code entries} over {@code workers} needs while it is measured, with a
   * quarter of headroom: up to 128 sources every distinct block keeps one 64-bit word per 64
   * sources (about 48 + 16 bytes per word and entry); above that one cell, plus pooled bitsets for
   * blocks of three or more holders (measured 47–62 B per entry at 1,024 workers with unique
   * blocks, 71–76 with 4-way shared ones; docs/scale.md), estimated at 80.
   */
  public static long heapBytes(int workers, long entries) {
    long words = (workers + 63) / 64;
    long perEntry = words <= 2 ? 48 + 16 * words : 80;
    return entries * perEntry / 4 * 5;
  }

  /**
   * Builds one index and measures it for every prompt length.
   *
   * @param log progress lines
   */
  public static List<Point> measure(
      int workers, long entries, boolean shared, int[] promptBlocks, Consumer<String> log) {
    int longest = Arrays.stream(promptBlocks).max().orElse(0);
    long before = usedAfterGc();
    long[] last = {0};
    ScaleIndex s =
        ScaleIndex.build(
            workers,
            entries,
            shared,
            longest,
            11,
            done -> {
              if (done - last[0] >= 2_000_000) {
                last[0] = done;
                log.accept(String.format("  built %,d of %,d entries", done, entries));
              }
            });
    long held = s.index.stats().entries();
    long after = usedAfterGc();
    double bytesPerEntry = (after - before) / (double) held;
    // Entries applied per second inside apply (a shared chain is applied once per copy).
    double applyRate = held / (s.applyNanos() / 1e9);
    RequestRouter router = router(s.workers, s);
    List<Point> out = new ArrayList<>();
    for (int p : promptBlocks) {
      long[] prompt = Arrays.copyOf(s.prompt, p);
      double[] match = time(() -> s.index.match(prompt));
      double[] pick =
          time(
              () -> {
                RoutePlan plan = ((RequestRouter.Pick.Ok) router.pick(prompt, Set.of(), 0)).plan();
                plan.booking().release();
              });
      out.add(
          new Point(
              workers,
              held,
              shared,
              p,
              applyRate,
              bytesPerEntry,
              match[0],
              match[1],
              pick[0],
              pick[1]));
    }
    Reference.reachabilityFence(s); // the heap figure above counted it
    return out;
  }

  private static RequestRouter router(List<WorkerId> workers, ScaleIndex s) {
    Fleet fleet = new Fleet(3, 1000, 30_000, System::currentTimeMillis);
    List<WorkerInfo> infos = new ArrayList<>();
    for (WorkerId id : workers) {
      infos.add(
          new WorkerInfo(
              id,
              "http://127.0.0.1:1",
              Role.MIXED,
              "vllm",
              1,
              null,
              null,
              WorkerInfo.Readiness.READY,
              "scale"));
    }
    fleet.apply(infos);
    return new RequestRouter(
        fleet, s.index, new LoadTracker(), PolicyConfig.defaults(), null, null);
  }

  /** p50 and p99 of one call, in µs. */
  private static double[] time(Runnable call) {
    for (int i = 0; i < WARMUP; i++) {
      call.run();
    }
    long[] ns = new long[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
      long t = System.nanoTime();
      call.run();
      ns[i] = System.nanoTime() - t;
    }
    Arrays.sort(ns);
    return new double[] {ns[SAMPLES / 2] / 1e3, ns[(int) (SAMPLES * 0.99)] / 1e3};
  }

  private static long usedAfterGc() {
    var mem = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      used = Math.min(used, mem.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
