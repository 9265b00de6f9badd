package io.infera.sim.bench.peer;

import io.infera.router.engineload.PromText;
import io.infera.sim.sched.EngineConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A peer router running in its own process on a loopback port in front of given workers: started,
 * waited for until it answers a request, and stopped; its CPU time (with its child processes) is
 * read from the operating system, so it is the peer's alone.
 */
public final class PeerProcess implements AutoCloseable {

  private static final Duration READY_WITHIN = Duration.ofSeconds(120);

  private final Peer peer;
  private final Process process;
  private final int port;
  private final Path log;
  private final int metricsPort;
  private final Process engines;
  private final Path enginesLog;
  // Temporary files and directories of this run (config, profile, discovery), removed on close.
  private final List<Path> scratch;

  private PeerProcess(
      Peer peer,
      Process process,
      int port,
      int metricsPort,
      Path log,
      Process engines,
      Path enginesLog,
      List<Path> scratch) {
    this.peer = peer;
    this.process = process;
    this.port = port;
    this.metricsPort = metricsPort;
    this.log = log;
    this.engines = engines;
    this.enginesLog = enginesLog;
    this.scratch = List.copyOf(scratch);
    Runtime.getRuntime().addShutdownHook(orphanGuard);
  }

  /** Stops the peer if the bench's JVM exits first (Ctrl-C), so no router is left running. */
  private final Thread orphanGuard = new Thread(this::stopAll, "peer-orphan-guard");

  private synchronized void stopAll() {
    stop(process);
    if (engines != null) {
      stop(engines);
    }
  }

  /**
   * Starts a peer that brings its own engines (Dynamo: the mocker, then the frontend, both on
   * loopback, discovering each other through a fresh file-discovery directory), then waits and
   * warms up as {@link #start} does.
   */
  public static PeerProcess startWithOwnEngines(
      Peer peer, Path bin, Peer.Engines spec, EngineConfig engine, String model)
      throws PeerUnavailable {
    Path modelDir = DynamoSetup.modelDir();
    Path profile = DynamoSetup.profileNpz(bin, engine, PROFILE_MAX_TOKENS);
    int port = freePort();
    Path discovery;
    Path log;
    Path enginesLog;
    Process enginesProcess;
    Process front;
    try {
      discovery = Files.createTempDirectory("infera-peer-dynamo-discovery-");
      log = Files.createTempFile("infera-peer-" + peer.wireName() + "-", ".log");
      enginesLog = Files.createTempFile("infera-peer-" + peer.wireName() + "-engines-", ".log");
      ProcessBuilder eb =
          new ProcessBuilder(peer.engineCommand(bin, spec, model, modelDir, profile))
              .redirectErrorStream(true)
              .redirectOutput(enginesLog.toFile());
      loopbackOnly(eb, discovery);
      enginesProcess = eb.start();
      ProcessBuilder fb =
          new ProcessBuilder(peer.command(bin, port, freePort(), List.of(), null))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      loopbackOnly(fb, discovery);
      front = fb.start();
    } catch (IOException e) {
      throw new PeerUnavailable("cannot start " + peer.wireName() + ": " + e.getMessage());
    }
    return new PeerProcess(
            peer,
            front,
            port,
            -1,
            log,
            enginesProcess,
            enginesLog,
            List.of(profile.getParent(), discovery))
        .ready(model);
  }

  /** The longest prompt the mocker's timing profile covers. */
  static final int PROFILE_MAX_TOKENS = 32_768;

  /** Dynamo's runtime binds and advertises loopback only; its discovery is a directory. */
  private static void loopbackOnly(ProcessBuilder pb, Path discovery) {
    Map<String, String> env = pb.environment();
    env.put("DYN_DISCOVERY_BACKEND", "file");
    env.put("DYN_FILE_KV", discovery.toString());
    for (String k :
        List.of(
            "DYN_EVENT_PLANE_HOST",
            "DYN_TCP_RPC_HOST",
            "DYN_TCP_RESPONSE_STREAM_HOST",
            "DYN_SYSTEM_HOST",
            "DYN_HTTP_RPC_HOST")) {
      env.put(k, "127.0.0.1");
    }
    env.put("DYN_LOG", "warn");
  }

  /**
   * Starts {@code peer} from {@code bin}, waits until a chat request through it is answered, then
   * warms it up until its CPU per request is steady ({@link #warmUp}); the answers are discarded.
   *
   * @param model the model name the workers serve
   * @param blockSize the engines' KV block size (our router's {@code pageSize})
   */
  public static PeerProcess start(
      Peer peer, Path bin, List<Peer.Worker> workers, String model, int blockSize)
      throws PeerUnavailable {
    int port = freePort();
    int metricsPort = freePort();
    Path log;
    Path config = null;
    Process p;
    try {
      log = Files.createTempFile("infera-peer-" + peer.wireName() + "-", ".log");
      if (peer == Peer.INFERA) {
        config = Files.createTempFile("infera-peer-" + peer.wireName() + "-", ".yaml");
        Files.writeString(config, Peer.config(model, blockSize, port, metricsPort, workers));
      }
      ProcessBuilder pb =
          new ProcessBuilder(peer.command(bin, port, metricsPort, workers, config))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      // As a router pod (docs/operations.md): two malloc arenas.
      pb.environment().put("MALLOC_ARENA_MAX", "2");
      p = pb.start();
    } catch (IOException e) {
      throw new PeerUnavailable("cannot start " + peer.wireName() + ": " + e.getMessage());
    }
    return new PeerProcess(
            peer,
            p,
            port,
            metricsPort,
            log,
            null,
            null,
            config == null ? List.of() : List.of(config))
        .ready(model);
  }

  /**
   * Waits until the peer serves and warms it up; on failure stops it and says why, with the end of
   * its engines' log when it brings its own.
   */
  private PeerProcess ready(String model) throws PeerUnavailable {
    try {
      awaitServing(model);
      warmUp(model);
      return this;
    } catch (PeerUnavailable e) {
      String enginesTail = enginesLog == null ? null : PeerInstall.tail(enginesLog);
      close();
      throw enginesTail == null
          ? e
          : new PeerUnavailable(e.getMessage() + " (its engines: " + enginesTail + ")");
    }
  }

  /** Warm-up requests per batch; the router's CPU per request is compared batch to batch. */
  static final int WARM_UP_BATCH = 200;

  /** At most this many batches (a JVM router's JIT settles well before). */
  static final int WARM_UP_MAX_BATCHES = 15;

  /** Steady: a batch's CPU per request within this fraction of the previous batch's. */
  static final double WARM_UP_STEADY = 0.15;

  /**
   * What the warm-up saw: the router's CPU per request in its first batch (cold: a JVM's JIT is
   * still compiling) and its last (steady), and the requests it took.
   */
  public record WarmUp(
      int requests, double firstBatchCpuMsPerRequest, double lastBatchCpuMsPerRequest) {}

  private WarmUp warmUp;

  /**
   * Our router's own account of where a request's time went, from its {@code /metrics}: the median
   * and p99 of {@code infera_tokenize_seconds} (parsing, template rendering and tokenization) and
   * {@code infera_routing_decision_seconds} (hash, match, score, pick), in ms; empty for the other
   * peers, whose metrics differ.
   */
  public Map<String, Double> routerStages() {
    if (peer != Peer.INFERA) {
      return Map.of();
    }
    Map<String, Double> out = new java.util.LinkedHashMap<>();
    try {
      String text =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                      .timeout(Duration.ofSeconds(10))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      List<String> stages = List.of("infera_tokenize_seconds", "infera_routing_decision_seconds");
      for (PromText.Sample x :
          PromText.parse(text, stages::contains, PromText.Limits.DEFAULTS).samples()) {
        String q = x.label("quantile");
        if ("0.5".equals(q) || "0.99".equals(q)) {
          out.put(x.name() + (q.equals("0.5") ? " p50" : " p99") + " ms", 1000 * x.value());
        }
      }
    } catch (IOException e) {
      out.put("unavailable: " + e.getMessage(), Double.NaN);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return out;
  }

  /** The warm-up's figures. */
  public WarmUp warmUpReport() {
    return warmUp;
  }

  /**
   * Short unique chat requests, 8 at a time, in batches of {@link #WARM_UP_BATCH}, until the
   * router's CPU per request is steady: a JVM router is measured after its JIT has compiled the
   * request path, as it runs in production, and every peer gets the same treatment.
   */
  private void warmUp(String model) throws PeerUnavailable {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> inFlight =
        new java.util.ArrayList<>();
    double first = -1;
    double previous = -1;
    double last = -1;
    int sent = 0;
    for (int batch = 0; batch < WARM_UP_MAX_BATCHES; batch++) {
      double cpu0 = cpuSeconds();
      for (int i = 0; i < WARM_UP_BATCH; i++, sent++) {
        String text = ("warm-up " + sent + " of " + peer.wireName() + " ").repeat(40);
        String body =
            "{\"model\":\""
                + model
                + "\",\"stream\":true,\"max_tokens\":2,\"messages\":[{\"role\":\"user\","
                + "\"content\":\""
                + text
                + "\"}]}";
        inFlight.add(
            http.sendAsync(
                HttpRequest.newBuilder(URI.create(url() + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(60))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString()));
        if (inFlight.size() == 8) {
          awaitAll(inFlight);
        }
      }
      awaitAll(inFlight);
      last = 1000 * (cpuSeconds() - cpu0) / WARM_UP_BATCH;
      if (first < 0) {
        first = last;
      }
      if (previous > 0 && Math.abs(last - previous) <= WARM_UP_STEADY * previous) {
        break;
      }
      previous = last;
    }
    warmUp = new WarmUp(sent, first, last);
  }

  private void awaitAll(List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> fs)
      throws PeerUnavailable {
    for (var f : fs) {
      try {
        int status = f.get().statusCode();
        if (status != 200) {
          throw new PeerUnavailable(
              peer.wireName() + " answered a warm-up request with HTTP " + status);
        }
      } catch (java.util.concurrent.ExecutionException e) {
        throw new PeerUnavailable(
            peer.wireName()
                + " failed a warm-up request: "
                + e.getCause()
                + ": "
                + PeerInstall.tail(log));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new PeerUnavailable("interrupted while warming up " + peer.wireName());
      }
    }
    fs.clear();
  }

  /** The peer's base URL. */
  public String url() {
    return "http://127.0.0.1:" + port;
  }

  public Peer peer() {
    return peer;
  }

  /**
   * CPU seconds the peer's router process and its descendants have used so far (not its own
   * engines', for a peer that brings them).
   */
  public double cpuSeconds() {
    return Stream.concat(Stream.of(process.toHandle()), process.descendants())
        .mapToDouble(h -> h.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0))
        .sum();
  }

  private void awaitServing(String model) throws PeerUnavailable {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    String body =
        "{\"model\":\""
            + model
            + "\",\"messages\":[{\"role\":\"user\",\"content\":\"ready?\"}],\"max_tokens\":1}";
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new PeerUnavailable(
            peer.wireName()
                + " exited with "
                + process.exitValue()
                + " while starting: "
                + PeerInstall.tail(log));
      }
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(url() + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(5))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
        last = "HTTP " + r.statusCode();
      } catch (IOException e) {
        last = e.getClass().getSimpleName();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new PeerUnavailable("interrupted while waiting for " + peer.wireName());
      }
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new PeerUnavailable("interrupted while waiting for " + peer.wireName());
      }
    }
    throw new PeerUnavailable(
        peer.wireName()
            + " did not serve a chat request within "
            + READY_WITHIN.toSeconds()
            + " s (last: "
            + last
            + "): "
            + PeerInstall.tail(log));
  }

  private static int freePort() throws PeerUnavailable {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new PeerUnavailable("no free loopback port: " + e.getMessage());
    }
  }

  /**
   * Stops the peer (SIGTERM, then SIGKILL after 5 s) and its children; removes its temporary files
   * (log, configuration, profile, discovery directory).
   */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(orphanGuard);
    } catch (IllegalStateException alreadyExiting) {
      // the hook is running or has run
    }
    stopAll();
    List<Path> files = new java.util.ArrayList<>(scratch);
    files.add(log);
    if (enginesLog != null) {
      files.add(enginesLog);
    }
    for (Path f : files) {
      try (Stream<Path> tree = Files.walk(f)) {
        tree.sorted(java.util.Comparator.reverseOrder()).forEach(x -> x.toFile().delete());
      } catch (IOException | java.io.UncheckedIOException ignored) {
        // a temporary file left behind
      }
    }
  }

  private static void stop(Process process) {
    List<ProcessHandle> kids = process.descendants().toList();
    process.destroy();
    try {
      if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    kids.forEach(ProcessHandle::destroyForcibly);
  }
}
