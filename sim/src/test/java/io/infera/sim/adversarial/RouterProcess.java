package io.infera.sim.adversarial;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code infera-router serve} in a JVM of its own, with the memory the operator gives a router (a 1
 * GiB container: {@code -XX:MaxRAM=1g -XX:MaxRAMPercentage=70}), the collector the JVM picks in
 * such a container and the image's {@code -XX:+ExitOnOutOfMemoryError}, so an attack that would
 * kill a router in a pod kills this one. Its resident memory is read from {@code
 * /proc/<pid>/status} every 100 ms.
 */
final class RouterProcess implements AutoCloseable {

  /** The container's memory limit the router must stay under. */
  static final long LIMIT_BYTES = 1L << 30;

  /**
   * The JVM flags of a router pod: the operator's heap share, the image's flags, and the Serial
   * collector, which the JVM selects itself in a container under 1,792 MiB (it is not a "server
   * class machine" there), so a 1 Gi router pod runs it. {@code -XX:MaxRAM} bounds only the heap
   * ergonomics, not that choice: without the flag this JVM, seeing the host's memory, would run G1,
   * whose remembered sets and heap expansion take about 100 MiB more (this suite: 991–1,103 MiB
   * peak with G1, 891 MiB with Serial).
   */
  static final List<String> JVM_FLAGS =
      List.of(
          "-XX:MaxRAM=1g",
          "-XX:MaxRAMPercentage=70",
          "-XX:+UseSerialGC",
          "-XX:+ExitOnOutOfMemoryError",
          "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));

  final int port;
  final int adminPort;
  private final Path log;
  private final Process process;
  private final ScheduledExecutorService sampler =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "rss-sampler");
            t.setDaemon(true);
            return t;
          });
  private final AtomicLong hwmKb = new AtomicLong();
  private final AtomicLong windowPeakKb = new AtomicLong();
  private final AtomicLong lastRssKb = new AtomicLong();

  private RouterProcess(int port, int adminPort, Path log, Process process) {
    this.port = port;
    this.adminPort = adminPort;
    this.log = log;
    this.process = process;
    sampler.scheduleAtFixedRate(this::sample, 0, 100, TimeUnit.MILLISECONDS);
  }

  /**
   * Writes {@code config} (with {@code ${PORT}} and {@code ${ADMIN_PORT}} replaced) and starts the
   * router on it; returns once {@code /ready} answers 200.
   */
  static RouterProcess start(Path dir, String config, int port, int adminPort) throws Exception {
    Files.createDirectories(dir);
    Path file = dir.resolve("router.yaml");
    Files.writeString(
        file,
        config
            .replace("${PORT}", Integer.toString(port))
            .replace("${ADMIN_PORT}", Integer.toString(adminPort)));
    Path log = Files.createTempFile(dir, "router-", ".log");
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(JVM_FLAGS);
    cmd.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            "io.infera.router.cli.InferaRouter",
            "serve",
            "--config",
            file.toString()));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    // As the operator's router pods: two malloc arenas (glibc's default, 8 per core, holds native
    // memory the JVM has freed: RSS grows past the pod's limit although the heap is bounded).
    pb.environment().put("MALLOC_ARENA_MAX", "2");
    Process p =
        pb.redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .start();
    RouterProcess r = new RouterProcess(port, adminPort, log, p);
    try {
      r.awaitReady(Duration.ofSeconds(90));
    } catch (Exception | Error e) {
      r.close();
      throw e;
    }
    return r;
  }

  /** A free loopback port (closed again, so the router can bind it). */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      s.setReuseAddress(true);
      return s.getLocalPort();
    }
  }

  private void awaitReady(Duration timeout) throws Exception {
    HttpClient c = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("router exited with " + process.exitValue() + "\n" + logTail());
      }
      try {
        HttpResponse<String> r =
            c.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError("router not ready in " + timeout + "\n" + logTail());
  }

  private void sample() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          long kb = kb(line);
          lastRssKb.set(kb);
          windowPeakKb.accumulateAndGet(kb, Math::max);
        } else if (line.startsWith("VmHWM:")) {
          hwmKb.accumulateAndGet(kb(line), Math::max);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process is gone; the last figures stay
    }
  }

  private static long kb(String line) {
    return Long.parseLong(line.replaceAll("[^0-9]", ""));
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The exit code, or null while alive. */
  Integer exitCode() {
    return process.isAlive() ? null : process.exitValue();
  }

  long pid() {
    return process.pid();
  }

  /** The kernel's resident high-water mark (VmHWM) of the process, in bytes. */
  long hwmBytes() {
    sample();
    return hwmKb.get() * 1024;
  }

  /** The highest VmRSS sampled since the last {@link #markWindow()}, in bytes. */
  long windowPeakBytes() {
    sample();
    return windowPeakKb.get() * 1024;
  }

  /** Starts a new window for {@link #windowPeakBytes()}. */
  void markWindow() {
    windowPeakKb.set(lastRssKb.get());
  }

  /** The last 60 lines of the router's output. */
  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** The router's whole output. */
  String logText() {
    try {
      return Files.readString(log, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() {
    sampler.shutdownNow();
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
