package io.infera.sim.bench;

import io.infera.sim.bench.report.ArmSummary;
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
 * seeds pooled; the oracle arm sets the reference for {@code hit_ratio_vs_oracle}.
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

  /** Every arm's summary plus every request. */
  public record Result(List<ArmSummary> arms, List<RequestResult> all) {}

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
    int total = arms.size() * seeds.size();
    int done = 0;
    for (Arm arm : arms) {
      List<RequestResult> armResults = new ArrayList<>();
      Map<Integer, Double> durations = new LinkedHashMap<>();
      for (int s : seeds) {
        if (progress != null) {
          progress.step(done, total, arm.name() + " seed " + s);
        }
        VirtualCluster.Run run = driver.run(arm, s, workloads.get(s));
        armResults.addAll(run.results());
        durations.put(s, run.durationMs());
        done++;
      }
      if (progress != null) {
        progress.step(done, total, arm.name() + " done");
      }
      all.addAll(armResults);
      summaries.add(Summaries.summarize(arm.name(), armResults, durations, fleetWorkers));
    }
    return new Result(Summaries.withOracle(summaries), all);
  }

  /** The virtual-time driver. */
  public static Driver virtual(FleetSpec fleet) {
    return (arm, seed, workload) -> new VirtualCluster(fleet, arm, seed).run(workload);
  }
}
