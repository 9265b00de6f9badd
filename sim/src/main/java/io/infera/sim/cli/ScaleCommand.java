package io.infera.sim.cli;

import io.infera.sim.bench.scale.ScaleBench;
import io.infera.sim.bench.scale.ScaleReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code infera-sim scale}: the router's index and pick at fleet scale, as curves
 * (docs/development.md, "Benchmarks").
 */
@Command(
    name = "scale",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Build the router's prefix index for fleets of growing size in this JVM (through the same"
          + " apply path engines' KV events take) and measure, call by call after a warm-up, the"
          + " match and the pick (hashing excluded) for prompts of several lengths, the apply rate"
          + " on one core and the heap per (block, worker) entry. Two sweeps: fleet size at"
          + " --entries, and entries at --sweep-workers (unique and 4-way shared blocks). Writes"
          + " DIR/results.csv, DIR/report.md and PNG curves. Needs a heap of about 100 bytes per"
          + " entry (java -Xmx4g for the defaults; more keeps collector pauses out of the p99s),"
          + " and refuses to start with less; the defaults took 2 minutes on 2 cores."
    })
public final class ScaleCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--workers",
      split = ",",
      defaultValue = "8,64,256,1024",
      description = "Fleet sizes of the first sweep (default: ${DEFAULT-VALUE}).")
  int[] workers;

  @Option(
      names = "--entries",
      defaultValue = "1000000",
      description = "Entries of every index in the fleet-size sweep (default: ${DEFAULT-VALUE}).")
  long entries;

  @Option(
      names = "--sweep-entries",
      split = ",",
      defaultValue = "1000000,5000000,10000000,20000000",
      description = "Entry counts of the second sweep (default: ${DEFAULT-VALUE}).")
  long[] sweepEntries;

  @Option(
      names = "--sweep-workers",
      defaultValue = "1024",
      description = "Fleet size of the entries sweep (default: ${DEFAULT-VALUE}).")
  int sweepWorkers;

  @Option(
      names = "--prompt-blocks",
      split = ",",
      defaultValue = "16,128,1024,2000,8192",
      description = "Prompt lengths in 16-token blocks (default: ${DEFAULT-VALUE}).")
  int[] promptBlocks;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "scale-results",
      description = "Report folder (default: ${DEFAULT-VALUE}).")
  Path out;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter outw = spec.commandLine().getOut();
    String bad = check();
    if (bad != null) {
      err.println("infera-sim scale: " + bad);
      return 2;
    }
    long need = 0;
    for (int w : workers) {
      need = Math.max(need, ScaleBench.heapBytes(w, entries));
    }
    for (long e : sweepEntries) {
      need = Math.max(need, ScaleBench.heapBytes(sweepWorkers, e));
    }
    long heap = Runtime.getRuntime().maxMemory();
    if (heap < need) {
      err.printf(
          "infera-sim scale: the largest index needs about %,d MiB of heap; this JVM has %,d MiB:"
              + " run it as java -Xmx%dg -jar infera-sim.jar scale ...%n",
          need >> 20, heap >> 20, (need >> 30) + 1);
      return 2;
    }
    List<ScaleBench.Point> fleet = new ArrayList<>();
    List<ScaleBench.Point> sized = new ArrayList<>();
    int steps = workers.length + 2 * sweepEntries.length;
    int step = 0;
    for (int w : workers) {
      err.printf("scale [%d/%d] %,d workers, %,d unique entries%n", ++step, steps, w, entries);
      err.flush();
      fleet.addAll(ScaleBench.measure(w, entries, false, promptBlocks, line -> log(err, line)));
    }
    for (boolean shared : new boolean[] {false, true}) {
      for (long e : sweepEntries) {
        err.printf(
            "scale [%d/%d] %,d workers, %,d %s entries%n",
            ++step, steps, sweepWorkers, e, shared ? "4-way shared" : "unique");
        err.flush();
        sized.addAll(
            ScaleBench.measure(sweepWorkers, e, shared, new int[] {2000}, line -> log(err, line)));
      }
    }
    ScaleReport.write(out, fleet, sized);
    outw.print(ScaleReport.table(fleet, sized));
    outw.println("report: " + out);
    outw.flush();
    return 0;
  }

  private static void log(PrintWriter err, String line) {
    err.println(line);
    err.flush();
  }

  private String check() {
    for (int w : workers) {
      if (w < 8 || w > 65_536) {
        return "--workers: each must be 8..65536, got " + w;
      }
    }
    if (sweepWorkers < 8 || sweepWorkers > 65_536) {
      return "--sweep-workers must be 8..65536, got " + sweepWorkers;
    }
    for (int p : promptBlocks) {
      if (p < 1 || p > 65_536) {
        return "--prompt-blocks: each must be 1..65536, got " + p;
      }
    }
    if (entries < 1 || entries > 200_000_000L) {
      return "--entries must be 1..200000000, got " + entries;
    }
    for (long e : sweepEntries) {
      if (e < 1 || e > 200_000_000L) {
        return "--sweep-entries: each must be 1..200000000, got " + e;
      }
    }
    return null;
  }
}
