package io.infera.sim.bench;

import io.infera.router.config.PolicyName;
import io.infera.sim.bench.peer.PeerInstall;
import io.infera.sim.workload.Arrivals;
import io.infera.sim.workload.MultiTurnWorkload;
import io.infera.sim.workload.Workload;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;

/**
 * The live driver: for every arm and seed a fresh {@link LiveStack} (simulated engines with real
 * HTTP servers and ZMQ publishers on loopback, behind the real router for a policy arm), the
 * workload replayed on it by the {@link LoadGenerator} through a {@link LiveClient}. Requests are
 * streamed, so TTFT is the first SSE chunk; the engines' clocks run {@code speedup} times faster
 * and reported times are in simulated milliseconds (wall × speedup). The oracle arm bypasses the
 * router and picks by the engines' true caches.
 */
public final class LiveCluster {

  private LiveCluster() {}

  /** Which OpenAI endpoint the load generator uses. */
  public enum Api {
    /** {@code /v1/completions} with token-id prompts (exact token accounting; supports oracle). */
    COMPLETIONS,
    /**
     * {@code /v1/chat/completions} with OpenAI messages: the router renders the chat template and
     * tokenizes like a production deployment (no oracle: it would need the engines' rendering).
     */
    CHAT
  }

  /** Progress of one run: requests answered (or skipped after a failed turn) of the total. */
  public interface Listener {
    void requestDone(Arm arm, int seed, int done, int total);

    /**
     * A peer arm's run ended: its router process used {@code cpuSeconds} of CPU for {@code
     * requests} requests (its own process, read from the operating system).
     */
    default void peerCpu(Arm arm, int seed, double cpuSeconds, int requests) {}

    /** A progress line (a peer being installed). */
    default void note(String line) {}
  }

  /** The completions driver without progress reports. */
  public static BenchRunner.Driver driver(FleetSpec fleet, double speedup) {
    return driver(fleet, speedup, Api.COMPLETIONS, null);
  }

  /**
   * @param listener told after every request, or null
   */
  public static BenchRunner.Driver driver(
      FleetSpec fleet, double speedup, Api api, Listener listener) {
    if (!(speedup > 0)) {
      throw new IllegalArgumentException("speedup must be > 0");
    }
    return (arm, seed, workload) -> {
      warmUp(fleet, speedup, api);
      return run(fleet, speedup, api, listener, arm, seed, workload);
    };
  }

  private static final Object WARM_LOCK = new Object();
  private static boolean warm;

  /**
   * Once per JVM, before the first measured run: the same stack on a short workload, results
   * discarded, so the first arm is not measured on a cold JIT (which, × speedup, would cost it
   * seconds of simulated latency).
   */
  static void warmUp(FleetSpec fleet, double speedup, Api api) throws Exception {
    synchronized (WARM_LOCK) {
      if (warm) {
        return;
      }
      warm = true;
    }
    Workload w =
        new MultiTurnWorkload(
            new MultiTurnWorkload.Config(
                6 * fleet.workers(),
                3,
                256,
                256,
                64,
                32,
                100,
                MultiTurnWorkload.ThinkTime.FIXED,
                Arrivals.poisson(10.0 * fleet.workers()),
                0));
    run(fleet, speedup, api, null, Arm.policy(PolicyName.KV_AWARE), 0, w);
  }

  /** One arm on one seed, on a stack of its own. */
  static VirtualCluster.Run run(
      FleetSpec fleet,
      double speedup,
      Api api,
      Listener listener,
      Arm arm,
      int seed,
      Workload workload)
      throws Exception {
    if (arm.usesTrueCaches() && api == Api.CHAT) {
      throw new IllegalArgumentException(
          "the " + arm.name() + " arm needs token-id prompts (completions)");
    }
    if (arm.isPeer()) {
      if (api != Api.CHAT) {
        throw new IllegalArgumentException(
            "the " + arm.name() + " arm routes on text: run it with chat requests");
      }
      StringWriter notes = new StringWriter();
      Path bin;
      try {
        bin = PeerInstall.ensure(arm.peer(), new PrintWriter(notes));
      } finally {
        if (listener != null && !notes.toString().isBlank()) {
          listener.note(notes.toString().strip());
        }
      }
      try (LiveStack stack = LiveStack.startWithPeer(fleet, speedup, seed, arm.peer(), bin)) {
        var w = stack.peer().warmUpReport();
        if (listener != null && w != null) {
          listener.note(
              String.format(
                  java.util.Locale.ROOT,
                  "%s seed %d: warm-up of %d requests, router CPU %.3f ms per request in the first"
                      + " batch, %.3f ms in the last",
                  arm.name(),
                  seed,
                  w.requests(),
                  w.firstBatchCpuMsPerRequest(),
                  w.lastBatchCpuMsPerRequest()));
        }
        double cpu0 = stack.peer().cpuSeconds();
        VirtualCluster.Run r = run(stack, fleet, speedup, api, listener, arm, seed, workload);
        if (listener != null) {
          listener.peerCpu(arm, seed, stack.peer().cpuSeconds() - cpu0, r.results().size());
          Map<String, Double> stages = stack.peer().routerStages();
          if (!stages.isEmpty()) {
            listener.note(arm.name() + " seed " + seed + ": router stages " + stages);
          }
        }
        return r;
      }
    }
    try (LiveStack stack =
        LiveStack.start(
            fleet, speedup, seed, arm.usesTrueCaches() ? null : arm.policyConfig(fleet))) {
      return run(stack, fleet, speedup, api, listener, arm, seed, workload);
    }
  }

  /** One arm on one seed, on {@code stack} (which the caller closes). */
  static VirtualCluster.Run run(
      LiveStack stack,
      FleetSpec fleet,
      double speedup,
      Api api,
      Listener listener,
      Arm arm,
      int seed,
      Workload workload)
      throws Exception {
    SimClock clock = new SimClock(speedup);
    LoadGenerator.Progress progress =
        listener == null ? null : (done, total) -> listener.requestDone(arm, seed, done, total);
    LoadGenerator.Outcome outcome;
    try (LiveClient client = new LiveClient(stack, fleet, api, arm, seed, clock)) {
      outcome = new LoadGenerator(clock, progress).run(workload, client);
    }
    return new VirtualCluster.Run(outcome.results(), outcome.durationMs(), stack.clockSlip());
  }
}
