package io.infera.sim.cli;

import io.infera.router.config.OverlapWeightMode;
import io.infera.router.config.PolicyConfig;
import io.infera.sim.bench.Arm;
import io.infera.sim.bench.BenchRunner;
import io.infera.sim.bench.FleetSpec;
import io.infera.sim.bench.LiveCluster;
import io.infera.sim.bench.StandardWorkloads;
import io.infera.sim.bench.VirtualCluster;
import io.infera.sim.bench.peer.Peer;
import io.infera.sim.bench.peer.PeerInstall;
import io.infera.sim.bench.peer.PeerUnavailable;
import io.infera.sim.workload.BundledTrace;
import io.infera.sim.workload.TraceFormatException;
import io.infera.sim.workload.TraceWorkload;
import io.infera.sim.workload.Workload;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code infera-sim bench}: routing quality, every policy and the oracle side by side. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Run one workload against the same simulated fleet under every routing policy plus an"
          + " oracle that knows each engine's true cache and the reference arms (a sweep of fixed"
          + " overlap weights, hit-max), fresh caches per arm, several seeds, and report TTFT"
          + " (p50/p90/p99/mean), ITL, throughput, hit ratio (also relative to the oracle),"
          + " worker share, errors, rejections and each arm's regret against the best reference"
          + " as a table, DIR/results.json, DIR/report.md and PNG charts.",
      "--virtual-time runs engines and the production routing code in a deterministic"
          + " discrete-event simulation (seconds, reproducible); without it the real router and"
          + " simulated engines talk over loopback HTTP and ZMQ."
    })
public final class BenchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  static final class Source {
    @Option(
        names = "--workload",
        paramLabel = "NAME",
        description = "shared-prefix, multi-turn, no-reuse, tool-agent or multimodal.")
    String workload;

    @Option(
        names = "--trace",
        paramLabel = "FILE.jsonl|NAME",
        description =
            "Replay a Mooncake-format trace (timestamp, input_length, output_length, hash_ids):"
                + " a file, or a bundled trace: mooncake-synthetic, mooncake-conversation.")
    Path trace;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Option(
      names = "--workers",
      defaultValue = "8",
      description = "Simulated engines (default ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--policies",
      defaultValue = "all",
      description =
          "Comma-separated arms: kv-aware, approx-prefix, least-loaded, round-robin, oracle,"
              + " hit-max (most truly cached blocks), kv-aware@W (kv-aware pinned to overlap"
              + " weight W), sweep (kv-aware@0.5,1,2,4,8,16,32); all = every policy, the oracle,"
              + " hit-max and the sweep (default).")
  String policies;

  @Option(
      names = "--peer",
      paramLabel = "NAME[,NAME…]",
      description =
          "Adds peer arms: another project's router (sglang-router, vllm-router, dynamo), pinned,"
              + " installed from PyPI into ~/.cache/infera/peers/ on first use, run in its own"
              + " process in front of the same engines in its cache-aware mode; infera is our own"
              + " router run the same way (its own JVM, a 1 Gi router pod's memory). Every peer"
              + " is warmed up first with short requests until its CPU per request is steady. Live runs only; every arm then"
              + " sends chat requests. Same as --policies …,peer:NAME. A peer that cannot be"
              + " installed is reported with its error and left out; one that fails to start stops"
              + " the run with its error.")
  String peers;

  @Option(
      names = "--seeds",
      defaultValue = "3",
      description = "Seeds per arm (default ${DEFAULT-VALUE}).")
  int seeds;

  @Option(names = "--virtual-time", description = "Deterministic discrete-event simulation.")
  boolean virtualTime;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Report folder (default bench-results/<time>).")
  Path out;

  @Option(
      names = "--rate",
      paramLabel = "R",
      description = "Arrivals per second (default: per workload).")
  Double rate;

  @Option(
      names = "--requests",
      paramLabel = "N",
      description = "Requests (or conversations) to send (default: per workload).")
  Integer requests;

  @Option(
      names = "--kv-fraction",
      defaultValue = "0.7",
      description =
          "shared-prefix: distinct system prompts as a fraction of the fleet's KV (default ${DEFAULT-VALUE}).")
  double kvFraction;

  @Option(
      names = "--blocks-per-worker",
      defaultValue = "2048",
      description = "KV blocks per engine (default ${DEFAULT-VALUE}).")
  int blocksPerWorker;

  @Option(
      names = "--block-size",
      defaultValue = "16",
      description = "Tokens per KV block (default ${DEFAULT-VALUE}).")
  int blockSize;

  @Option(
      names = "--speedup",
      defaultValue = "1",
      description =
          "Live mode: simulated time runs this much faster than the wall clock (default"
              + " ${DEFAULT-VALUE}; the run warns when this machine cannot keep up).")
  double speedup;

  @Option(
      names = "--trace-block-tokens",
      defaultValue = "512",
      description = "Tokens per trace hash id (default ${DEFAULT-VALUE}, Mooncake's).")
  int traceBlockTokens;

  @Option(
      names = "--trace-speedup",
      defaultValue = "1",
      description = "Divide trace timestamps by this (default ${DEFAULT-VALUE}).")
  double traceSpeedup;

  @Option(
      names = "--overlap-weight",
      description =
          "A fixed policy.overlapWeight for kv-aware and approx-prefix (overlapWeightMode fixed),"
              + " and the oracle's weight: what a block of prefill saved is worth against a block"
              + " of load. Unset: the router's default, the self-tuning weight (auto), and the"
              + " oracle's 1.0.")
  Double overlapWeightFlag;

  double overlapWeight;

  @Option(
      names = "--engine-load",
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "" + io.infera.router.config.EngineLoadConfig.DEFAULT_ENABLED,
      description =
          "Virtual time: the router's policy.engineLoad.enabled (scrape every engine's running,"
              + " waiting and KV usage and add the engine term; default ${DEFAULT-VALUE}, the"
              + " router's default).")
  boolean engineLoad;

  @Option(
      names = "--engine-load-interval-ms",
      defaultValue = "" + io.infera.router.config.EngineLoadConfig.DEFAULT_INTERVAL_MS,
      description = "Virtual time: policy.engineLoad.intervalMs (default ${DEFAULT-VALUE}).")
  long engineLoadIntervalMs;

  @Option(
      names = "--engine-load-weight",
      defaultValue = "" + io.infera.router.config.EngineLoadConfig.DEFAULT_WEIGHT,
      description = "Virtual time: policy.engineLoad.weight (default ${DEFAULT-VALUE}).")
  double engineLoadWeight;

  @Option(
      names = "--scrape-delay-ms",
      defaultValue = "5",
      description =
          "Virtual time: how long a /metrics scrape's answer takes to reach the router (default"
              + " ${DEFAULT-VALUE}).")
  double scrapeDelayMs;

  @Option(
      names = "--unrouted-fraction",
      defaultValue = "0",
      description =
          "Virtual time: this fraction of requests reaches a random engine without the router"
              + " (another router sharing no load, clients bypassing it); the router sees their KV"
              + " events, and their engine's /metrics with --engine-load (default"
              + " ${DEFAULT-VALUE}).")
  double unroutedFraction;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outw = spec.commandLine().getOut();
    Logs.quietUnlessConfigured();
    overlapWeight =
        overlapWeightFlag == null ? PolicyConfig.DEFAULT_OVERLAP_WEIGHT : overlapWeightFlag;
    if (!(overlapWeight >= 0) || Double.isInfinite(overlapWeight)) {
      err.println("infera-sim bench: --overlap-weight must be a finite number >= 0");
      return 2;
    }
    if (workers < 1 || seeds < 1 || blocksPerWorker < 1 || blockSize < 1 || !(speedup > 0)) {
      err.println(
          "infera-sim bench: --workers, --seeds, --blocks-per-worker, --block-size and --speedup must be positive");
      return 2;
    }
    List<Arm> arms;
    try {
      arms = Arm.parse(policies);
    } catch (IllegalArgumentException e) {
      err.println("infera-sim bench: --policies: " + e.getMessage());
      return 2;
    }
    if (peers != null) {
      try {
        for (String p : peers.split(",")) {
          if (!p.isBlank()) {
            arms.add(Arm.peer(Peer.parse(p)));
          }
        }
      } catch (IllegalArgumentException e) {
        err.println("infera-sim bench: --peer: " + e.getMessage());
        return 2;
      }
    }
    boolean withPeers = arms.stream().anyMatch(Arm::isPeer);
    if (withPeers && virtualTime) {
      err.println("infera-sim bench: peer arms run in the live bench only (drop --virtual-time)");
      return 2;
    }
    if (withPeers && arms.stream().anyMatch(Arm::usesTrueCaches)) {
      err.println(
          "infera-sim bench: with peer arms every arm sends chat requests; the oracle and hit-max"
              + " arms need token-id prompts: leave them out of --policies");
      return 2;
    }
    Map<String, String> peersUnavailable = new LinkedHashMap<>();
    for (Arm a : List.copyOf(arms)) {
      if (a.isPeer()) {
        try {
          PeerInstall.ensure(a.peer(), err);
        } catch (PeerUnavailable e) {
          err.println("infera-sim bench: " + a.name() + " is left out: " + e.getMessage());
          peersUnavailable.put(a.name(), e.getMessage());
          arms.remove(a);
        }
      }
    }
    if (arms.isEmpty()) {
      err.println("infera-sim bench: no arm is left to run");
      return 1;
    }
    FleetSpec fleet =
        new FleetSpec(
            workers,
            blocksPerWorker,
            blockSize,
            io.infera.sim.sched.EngineConfig.defaults(),
            2.0,
            overlapWeight,
            overlapWeightFlag == null ? OverlapWeightMode.AUTO : OverlapWeightMode.FIXED);
    IntFunction<Workload> workload;
    String name;
    try {
      if (source.trace != null) {
        TraceWorkload.Options base =
            TraceWorkload.Options.defaults()
                .withBlockTokens(traceBlockTokens)
                .withSpeedup(traceSpeedup)
                .withMaxRequests(requests == null ? Integer.MAX_VALUE : requests);
        BundledTrace bundled =
            java.nio.file.Files.exists(source.trace)
                ? null
                : BundledTrace.byName(source.trace.toString());
        if (bundled != null) {
          bundled.load(base);
          workload =
              seed -> {
                try {
                  return bundled.load(base.withSeed(seed));
                } catch (TraceFormatException | java.io.IOException e) {
                  throw new IllegalStateException("bundled trace unreadable: " + e.getMessage());
                }
              };
          name = "trace " + bundled.traceName();
        } else {
          // Parse once up front so a bad file stops here with its line number.
          TraceWorkload.load(source.trace, base);
          Path file = source.trace;
          workload =
              seed -> {
                try {
                  return TraceWorkload.load(file, base.withSeed(seed));
                } catch (TraceFormatException | java.io.IOException e) {
                  throw new IllegalStateException("trace changed while running: " + e.getMessage());
                }
              };
          name = "trace " + source.trace.getFileName();
        }
      } else {
        workload = StandardWorkloads.of(source.workload, fleet, kvFraction, requests, rate);
        name = source.workload;
      }
    } catch (TraceFormatException e) {
      err.println("infera-sim bench: " + e.getMessage());
      return 2;
    } catch (java.nio.file.NoSuchFileException e) {
      err.println(
          "infera-sim bench: --trace: no such file: "
              + e.getFile()
              + " (bundled traces: "
              + String.join(", ", BundledTrace.names())
              + ")");
      return 2;
    } catch (java.io.IOException e) {
      err.println("infera-sim bench: --trace: cannot read " + source.trace + ": " + e.getMessage());
      return 2;
    } catch (IllegalArgumentException e) {
      err.println("infera-sim bench: " + e.getMessage());
      return 2;
    }
    List<Integer> seedList = new ArrayList<>();
    for (int s = 1; s <= seeds; s++) {
      seedList.add(s);
    }
    List<String> fleetWorkers = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      fleetWorkers.add("w" + i);
    }
    Path dir =
        out != null
            ? out
            : Path.of(
                "bench-results",
                LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    io.infera.router.config.EngineLoadConfig engineCfg;
    try {
      io.infera.router.config.EngineLoadConfig d =
          io.infera.router.config.EngineLoadConfig.DEFAULTS;
      engineCfg =
          new io.infera.router.config.EngineLoadConfig(
              engineLoad,
              engineLoadIntervalMs,
              d.timeoutMs(),
              Math.max(d.maxStalenessMs(), 4 * engineLoadIntervalMs),
              engineLoadWeight,
              d.maxBodyBytes(),
              java.util.Set.of(),
              java.util.Set.of());
    } catch (IllegalArgumentException e) {
      err.println("infera-sim bench: --engine-load-*: " + e.getMessage());
      return 2;
    }
    if (!virtualTime && source != null && "multimodal".equals(source.workload)) {
      // The live client sends a turn's text only: its images exist as keys, not references.
      err.println("infera-sim bench: --workload multimodal runs in --virtual-time only");
      return 2;
    }
    VirtualCluster.Options vopts;
    try {
      vopts = new VirtualCluster.Options(engineCfg, scrapeDelayMs, unroutedFraction);
    } catch (IllegalArgumentException e) {
      err.println("infera-sim bench: --scrape-delay-ms / --unrouted-fraction: " + e.getMessage());
      return 2;
    }
    Map<String, Double> peerCpu = new LinkedHashMap<>();
    List<String> peerNotes = java.util.Collections.synchronizedList(new ArrayList<>());
    LiveCluster.Listener peerListener =
        new LiveCluster.Listener() {
          @Override
          public void requestDone(Arm arm, int seed, int done, int total) {}

          @Override
          public void peerCpu(Arm arm, int seed, double cpuSeconds, int requests) {
            double perRequestMs = requests == 0 ? 0 : 1000 * cpuSeconds / requests;
            err.printf(
                java.util.Locale.ROOT,
                "%s seed %d: router process CPU %.2f s for %d requests (%.3f ms per request)%n",
                arm.name(),
                seed,
                cpuSeconds,
                requests,
                perRequestMs);
            err.flush();
            peerCpu.put(arm.name() + "/seed" + seed, perRequestMs);
          }

          @Override
          public void note(String line) {
            err.println(line);
            err.flush();
            peerNotes.add(line);
          }
        };
    BenchRunner.Driver driver =
        virtualTime
            ? BenchRunner.virtual(fleet, vopts)
            : withPeers
                ? LiveCluster.driver(fleet, speedup, LiveCluster.Api.CHAT, peerListener)
                : LiveCluster.driver(fleet, speedup);
    BenchRunner.Result result;
    try (ProgressBar pb =
        new ProgressBarBuilder()
            .setTaskName("bench " + name)
            .setInitialMax((long) arms.size() * seedList.size())
            .setStyle(ProgressBarStyle.ASCII)
            .setConsumer(new me.tongfei.progressbar.ConsoleProgressBarConsumer(System.err))
            .build()) {
      result =
          BenchRunner.run(
              driver,
              arms,
              seedList,
              workload,
              fleetWorkers,
              (done, total, label) -> {
                pb.stepTo(done);
                pb.setExtraMessage(label);
              });
    }
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("workload", name);
    params.put("mode", virtualTime ? "virtual time" : "live (speedup " + speedup + ")");
    params.put("workers", workers);
    params.put("blocks_per_worker", blocksPerWorker);
    params.put("block_size", blockSize);
    params.put("seeds", seeds);
    params.put("policies", policies);
    params.put("overlap_weight", overlapWeight);
    if (withPeers || !peersUnavailable.isEmpty()) {
      params.put("api", "chat (every arm, because of the peer arms)");
      params.put("peers_unavailable", peersUnavailable);
      params.put("peer_cpu_ms_per_request", peerCpu);
      params.put("peer_notes", List.copyOf(peerNotes));
      params.put(
          "router_cpu_note",
          "peer CPU is the peer process's own (peer:infera is our router in its own JVM); a policy"
              + " arm's router runs inside the bench's JVM beside the engines, so its CPU is not"
              + " separated");
    }
    if (virtualTime) {
      params.put("engine_load", engineLoad);
      params.put("engine_load_interval_ms", engineLoadIntervalMs);
      params.put("engine_load_weight", engineLoadWeight);
      params.put("scrape_delay_ms", scrapeDelayMs);
      params.put("unrouted_fraction", unroutedFraction);
    }
    params.put("overlap_weight_mode", fleet.weightMode().wire());
    Reports.write(outw, err, dir, "Routing benchmark: " + name, params, result, !virtualTime);
    outw.println("report: " + dir.toAbsolutePath());
    outw.flush();
    return 0;
  }
}
