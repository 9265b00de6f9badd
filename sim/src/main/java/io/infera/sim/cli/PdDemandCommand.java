package io.infera.sim.cli;

import io.infera.router.config.DecodeDemandConfig.Mode;
import io.infera.sim.bench.PdDemandBench;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code infera-sim pd-demand}: decode input demand {@code off}, {@code shadow} and {@code on} on
 * the decode-heavy prefill/decode workload (docs/simulator.md, "Decode input demand").
 */
@Command(
    name = "pd-demand",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Replay a decode-heavy prefill/decode workload (long inputs from a few Zipf-popular shared"
          + " documents plus a unique question, few output tokens, Poisson arrivals) through the"
          + " production request router (kv-aware, load tracker, decode input demand) on virtual"
          + " time, once per seed and demand mode, in front of a prefill/decode cost model. Reports"
          + " how evenly the decode workers hold in-flight input tokens (max/min, instantaneous and"
          + " time-averaged), how often shadow's suggestion matched the pick, and latency, as"
          + " DIR/report.md and DIR/results.csv. Deterministic per seed; the defaults take a few"
          + " seconds."
    })
public final class PdDemandCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--seeds",
      defaultValue = "3",
      description = "Seeds 1..N per demand mode (default: ${DEFAULT-VALUE}).")
  int seeds;

  @Option(
      names = "--requests",
      defaultValue = "4000",
      description = "Requests per run (default: ${DEFAULT-VALUE}).")
  int requests;

  @Option(
      names = "--rate",
      defaultValue = "40",
      description = "Poisson arrivals per second (default: ${DEFAULT-VALUE}).")
  double rate;

  @Option(
      names = "--prefill-workers",
      defaultValue = "4",
      description = "Prefill workers (default: ${DEFAULT-VALUE}).")
  int prefillWorkers;

  @Option(
      names = "--decode-workers",
      defaultValue = "4",
      description = "Decode workers (default: ${DEFAULT-VALUE}).")
  int decodeWorkers;

  @Option(
      names = "--modes",
      split = ",",
      defaultValue = "off,shadow,on",
      description = "Demand modes to run (default: ${DEFAULT-VALUE}).")
  List<String> modes;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "pd-demand-results",
      description = "Report folder (default: ${DEFAULT-VALUE}).")
  Path out;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outw = spec.commandLine().getOut();
    List<Mode> parsed = new ArrayList<>();
    String bad = check(parsed);
    if (bad != null) {
      err.println("infera-sim pd-demand: " + bad);
      return 2;
    }
    PdDemandBench.Spec workload =
        PdDemandBench.Spec.standard().with(requests, rate, prefillWorkers, decodeWorkers);
    StringBuilder table = new StringBuilder();
    StringBuilder csv = new StringBuilder(PdDemandBench.Result.csvHeader()).append('\n');
    int runs = seeds * parsed.size();
    int run = 0;
    for (long seed = 1; seed <= seeds; seed++) {
      table.append("seed ").append(seed).append("\n\n");
      table.append(PdDemandBench.Result.header()).append('\n');
      for (Mode m : parsed) {
        err.printf(
            Locale.ROOT,
            "pd-demand [%d/%d] seed %d, demand %s, %,d requests%n",
            ++run,
            runs,
            seed,
            m.wire(),
            requests);
        err.flush();
        PdDemandBench.Result r = PdDemandBench.run(workload, m, seed);
        table.append(r.row()).append('\n');
        csv.append(r.csv(seed)).append('\n');
      }
      table.append('\n');
    }
    Files.createDirectories(out);
    Files.writeString(out.resolve("results.csv"), csv, StandardCharsets.UTF_8);
    Files.writeString(
        out.resolve("report.md"),
        "# Decode input demand\n\n" + describe(workload) + table,
        StandardCharsets.UTF_8);
    outw.print(table);
    outw.println("report: " + out);
    outw.flush();
    return 0;
  }

  private static String describe(PdDemandBench.Spec s) {
    return String.format(
        Locale.ROOT,
        "%,d requests per run at %.1f/s; prompts: one of %d shared documents of %,d to %,d tokens"
            + " plus a unique question; %d to %d output tokens; %d prefill workers at %,.0f"
            + " tokens/s, %d decode workers (a step %.0f ms + %.1f ms per 100,000 input tokens"
            + " held). Virtual time: the machine's load does not change the numbers.%n%n",
        s.requests(),
        s.ratePerSecond(),
        s.documents(),
        s.minDocTokens(),
        s.maxDocTokens(),
        s.minOutput(),
        s.maxOutput(),
        s.prefillWorkers(),
        s.prefillTokensPerSecond(),
        s.decodeWorkers(),
        s.stepMs(),
        s.stepMsPer100kTokens());
  }

  private String check(List<Mode> parsed) {
    if (seeds < 1 || seeds > 100) {
      return "--seeds must be 1..100, got " + seeds;
    }
    if (requests < 100 || requests > 1_000_000) {
      return "--requests must be 100..1000000, got " + requests;
    }
    if (!(rate > 0) || rate > 10_000 || Double.isInfinite(rate)) {
      return "--rate must be above 0 and at most 10000, got " + rate;
    }
    if (prefillWorkers < 1 || prefillWorkers > 256) {
      return "--prefill-workers must be 1..256, got " + prefillWorkers;
    }
    if (decodeWorkers < 2 || decodeWorkers > 256) {
      return "--decode-workers must be 2..256 (balance needs two), got " + decodeWorkers;
    }
    for (String m : modes) {
      Mode mode;
      try {
        mode = Mode.parse(m);
      } catch (IllegalArgumentException e) {
        return "--modes: " + e.getMessage();
      }
      if (!parsed.contains(mode)) {
        parsed.add(mode);
      }
    }
    return null;
  }
}
