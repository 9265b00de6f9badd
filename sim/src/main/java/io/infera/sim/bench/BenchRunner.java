package io.infera.sim.bench;

import io.infera.sim.bench.report.ArmSummary;
import io.infera.sim.bench.report.MultimodalStats;
import io.infera.sim.bench.report.RequestResult;
import io.infera.sim.bench.report.Summaries;
import io.infera.sim.workload.Workload;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Runs every arm on every seed (fresh engines each time) and summarizes per arm, results of all
 * seeds pooled; the oracle arm sets the reference for {@code hit_ratio_vs_oracle}, the sweep and
 * hit-max arms the references of every arm's regret ({@link Summaries#withReferences}).
 */
public final class BenchRunner {

  /** What a run of one arm on one seed produced. */
  public interface Driver {
    VirtualCluster.Run run(Arm arm, int seed, Workload workload) throws Exception;
  }

  /** Progress callback: (done, total, label). */
  public interface Progress {
    void step(int done, int total, String label);
  }

  /**
   * Every arm's summary plus every request, and warnings about the runs' validity.
   *
   * @param maxClockSlip the live engines' worst clock slip over every run (0 in virtual time)
   */
  public record Result(
      List<ArmSummary> arms, List<RequestResult> all, List<String> warnings, double maxClockSlip) {}

  /** Above this clock slip a live run's latencies are noticeably inflated by the host. */
  public static final double CLOCK_SLIP_WARNING = 0.05;

  private BenchRunner() {}

  /**
   * @param workloadForSeed the workload of a seed (the same for every arm of that seed)
   * @param fleetWorkers every worker id, so an idle worker counts in the share metric
   */
  public static Result run(
      Driver driver,
      List<Arm> arms,
      List<Integer> seeds,
      IntFunction<Workload> workloadForSeed,
      List<String> fleetWorkers,
      Progress progress)
      throws Exception {
    Map<Integer, Workload> workloads = new HashMap<>();
    for (int s : seeds) {
      workloads.put(s, workloadForSeed.apply(s));
    }
    List<ArmSummary> summaries = new ArrayList<>();
    List<RequestResult> all = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    double maxSlip = 0;
    int total = arms.size() * seeds.size();
    int done = 0;
    for (Arm arm : arms) {
      List<RequestResult> armResults = new ArrayList<>();
      Map<Integer, Double> durations = new LinkedHashMap<>();
      MultimodalStats media = MultimodalStats.NONE;
      for (int s : seeds) {
        if (progress != null) {
          progress.step(done, total, arm.name() + " seed " + s);
        }
        VirtualCluster.Run run = driver.run(arm, s, workloads.get(s));
        maxSlip = Math.max(maxSlip, run.clockSlip());
        if (run.clockSlip() > CLOCK_SLIP_WARNING) {
          warnings.add(
              String.format(
                  java.util.Locale.ROOT,
                  "%s seed %d: the simulated engines finished their steps %.0f%% late on average"
                      + " (this machine could not keep up with the speedup); its latencies include"
                      + " host overhead, so lower --speedup",
                  arm.name(),
                  s,
                  100 * run.clockSlip()));
        }
        armResults.addAll(run.results());
        media = media.plus(run.multimodal());
        durations.put(s, run.durationMs());
        done++;
      }
      if (progress != null) {
        progress.step(done, total, arm.name() + " done");
      }
      all.addAll(armResults);
      summaries.add(
          Summaries.summarize(arm.name(), armResults, durations, fleetWorkers)
              .withMultimodal(media));
    }
    return new Result(
        Summaries.withReferences(Summaries.withOracle(summaries)),
        all,
        List.copyOf(warnings),
        maxSlip);
  }

  /** The virtual-time driver. */
  public static Driver virtual(FleetSpec fleet) {
    return (arm, seed, workload) -> new VirtualCluster(fleet, arm, seed).run(workload);
  }

  /** The virtual-time driver with {@code options} (engine-reported load, unrouted traffic). */
  public static Driver virtual(FleetSpec fleet, VirtualCluster.Options options) {
    return (arm, seed, workload) -> new VirtualCluster(fleet, arm, seed, options).run(workload);
  }
}
