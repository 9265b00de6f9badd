package io.infera.sim.cli;

import io.infera.router.config.PolicyName;
import io.infera.sim.bench.Arm;
import io.infera.sim.bench.BenchRunner;
import io.infera.sim.bench.FleetSpec;
import io.infera.sim.bench.LiveCluster;
import io.infera.sim.bench.report.ArmSummary;
import io.infera.sim.sched.EngineConfig;
import io.infera.sim.workload.Arrivals;
import io.infera.sim.workload.MultiTurnWorkload;
import io.infera.sim.workload.Workload;
import io.infera.sim.workload.WorkloadStats;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code infera-sim demo}: the whole system on one machine. Four simulated vLLM engines (HTTP + ZMQ
 * KV events on loopback) behind the real router, one multi-turn chat workload whose conversations
 * share a long system prompt, replayed under {@code round-robin} and then {@code kv-aware}; prints
 * the comparison and writes a report folder.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Start 4 simulated vLLM engines and the real Infera router in this JVM (real HTTP and ZMQ"
          + " on loopback; no cluster, no broker), replay a multi-turn chat workload with a shared"
          + " system prompt once under round-robin and once under kv-aware, and compare them:"
          + " requests, errors, TTFT p50/p90/p99, throughput, prefix-hit ratio and per-worker"
          + " share. Writes DIR/report.md, DIR/results.json, DIR/requests.csv and PNG charts."
          + " Takes about a minute on 2 cores."
    })
public final class DemoCommand implements Callable<Integer> {

  static final int WORKERS = 4;

  @Spec CommandSpec spec;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Report folder (default demo-results/<time>).")
  Path out;

  @Option(
      names = "--conversations",
      defaultValue = "60",
      description = "Chat conversations per policy (default ${DEFAULT-VALUE}).")
  int conversations;

  @Option(
      names = "--turns",
      defaultValue = "6",
      description = "Turns per conversation (default ${DEFAULT-VALUE}).")
  int turns;

  @Option(
      names = "--speedup",
      defaultValue = "1",
      description =
          "Simulated engine time runs this much faster than the wall clock; reported times are"
              + " simulated (default ${DEFAULT-VALUE}).")
  double speedup;

  @Option(
      names = "--blocks-per-worker",
      defaultValue = "4096",
      description = "KV blocks of 16 tokens per engine (default ${DEFAULT-VALUE}).")
  int blocksPerWorker;

  @Option(
      names = "--overlap-weight",
      defaultValue = "1.0",
      description =
          "The router's policy.overlapWeight for kv-aware (default ${DEFAULT-VALUE}, the router's"
              + " default).")
  double overlapWeight;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Workload seed (default ${DEFAULT-VALUE}).")
  int seed;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outw = spec.commandLine().getOut();
    Logs.quietUnlessConfigured();
    if (conversations < 1
        || turns < 1
        || blocksPerWorker < 1
        || !(speedup > 0)
        || !(overlapWeight >= 0)
        || Double.isInfinite(overlapWeight)) {
      err.println(
          "infera-sim demo: --conversations, --turns, --blocks-per-worker and --speedup must be"
              + " positive, --overlap-weight finite and >= 0");
      return 2;
    }
    FleetSpec fleet =
        new FleetSpec(WORKERS, blocksPerWorker, 16, EngineConfig.defaults(), 2.0, overlapWeight);
    MultiTurnWorkload.Config config = workloadConfig(conversations, turns, seed);
    Workload workload = new MultiTurnWorkload(config);
    WorkloadStats stats = workload.stats();
    List<Arm> arms = List.of(Arm.policy(PolicyName.ROUND_ROBIN), Arm.policy(PolicyName.KV_AWARE));
    List<String> workerIds = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      workerIds.add("w" + i);
    }
    Path dir =
        out != null
            ? out
            : Path.of(
                "demo-results",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    err.printf(
        Locale.ROOT,
        "infera-sim demo: %d simulated vLLM engines (%d KV blocks of 16 tokens each) behind the"
            + " Infera router, all in this JVM on loopback.%n"
            + "Workload: %d chat conversations × %d turns, %d-token shared system prompt + %d"
            + " own, %d-token questions, %d-token answers (%d requests per policy).%n",
        WORKERS,
        blocksPerWorker,
        config.conversations(),
        config.turns(),
        config.sharedSystemTokens(),
        config.systemTokens(),
        config.userTokens(),
        config.outputTokens(),
        stats.requests());
    err.flush();
    long started = System.nanoTime();
    BenchRunner.Result result;
    long totalRequests = (long) stats.requests() * arms.size();
    try (ProgressBar pb =
        new ProgressBarBuilder()
            .setTaskName("demo")
            .setInitialMax(totalRequests)
            .setStyle(ProgressBarStyle.ASCII)
            .setUpdateIntervalMillis(250)
            .setConsumer(new ConsoleProgressBarConsumer(System.err))
            .build()) {
      LiveCluster.Listener listener =
          (arm, s, done, total) -> {
            int offset = arms.indexOf(arm) * stats.requests();
            pb.stepTo(offset + done);
            pb.setExtraMessage(arm.name());
          };
      result =
          BenchRunner.run(
              LiveCluster.driver(fleet, speedup, LiveCluster.Api.CHAT, listener),
              arms,
              List.of(seed),
              s -> workload,
              workerIds,
              null);
      pb.stepTo(totalRequests);
    }
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("engines", WORKERS + " simulated vLLM (vLLM 0.33.0 KV events over ZMQ)");
    params.put("blocks_per_worker", blocksPerWorker);
    params.put("block_size", 16);
    params.put("api", "/v1/chat/completions, streamed, via the router (Qwen3 chat template)");
    params.putAll(workload.parameters());
    params.put("speedup", speedup);
    params.put("seed", seed);
    Reports.write(outw, err, dir, "Infera demo: round-robin vs kv-aware", params, result, true);
    outw.println(verdict(result.arms()));
    outw.printf(
        Locale.ROOT,
        "report: %s (%.0f s)%n",
        dir.toAbsolutePath(),
        (System.nanoTime() - started) / 1e9);
    outw.flush();
    return 0;
  }

  /**
   * The demo's workload: conversations share a 512-token system prompt, then carry 2,048 tokens of
   * their own (a document, a tool list); questions of 128 tokens, answers of 64; six conversations
   * start per second and each thinks ~1 s between turns. Round-robin spreads every conversation
   * over all engines, whose caches cannot hold them all; kv-aware keeps each on the engine that
   * holds its history.
   */
  static MultiTurnWorkload.Config workloadConfig(int conversations, int turns, long seed) {
    return new MultiTurnWorkload.Config(
        conversations,
        turns,
        2048,
        512,
        128,
        64,
        1000,
        MultiTurnWorkload.ThinkTime.EXPONENTIAL,
        Arrivals.poisson(6.0),
        seed);
  }

  /** One line comparing the two arms. */
  static String verdict(List<ArmSummary> arms) {
    ArmSummary rr = null;
    ArmSummary kv = null;
    for (ArmSummary a : arms) {
      if (a.policy().equals(PolicyName.ROUND_ROBIN.wireName())) {
        rr = a;
      } else if (a.policy().equals(PolicyName.KV_AWARE.wireName())) {
        kv = a;
      }
    }
    if (rr == null || kv == null) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "kv-aware vs round-robin: TTFT p50 %.1f vs %.1f ms (%.1fx lower), p90 %.1f vs %.1f ms"
            + " (%.1fx lower); prefix hits %.0f%% vs %.0f%%",
        kv.ttftP50Ms(),
        rr.ttftP50Ms(),
        rr.ttftP50Ms() / kv.ttftP50Ms(),
        kv.ttftP90Ms(),
        rr.ttftP90Ms(),
        rr.ttftP90Ms() / kv.ttftP90Ms(),
        100 * kv.hitRatio(),
        100 * rr.hitRatio());
  }
}
