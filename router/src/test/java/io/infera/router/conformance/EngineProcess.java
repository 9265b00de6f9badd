package io.infera.router.conformance;

import io.infera.router.json.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One engine's real KV-event publisher (engine_driver.py running the wheel's own ZmqEventPublisher)
 * in a Python process, commanded one JSON line at a time.
 */
final class EngineProcess implements AutoCloseable {

  /** An event of a batch, as the driver's protocol names it. */
  static Map<String, Object> store(String req, int from, int to) {
    return Map.of("type", "store", "req", req, "from", from, "to", to);
  }

  static Map<String, Object> remove(String req, int from, int to) {
    return Map.of("type", "remove", "req", req, "from", from, "to", to);
  }

  static Map<String, Object> clear() {
    return Map.of("type", "clear");
  }

  static Map<String, Object> placeholder(String req, int block, String medium) {
    return Map.of("type", "placeholder", "req", req, "block", block, "medium", medium);
  }

  final String engine;
  private final Process process;
  private final Writer in;
  private final BufferedReader out;
  private final Path stderr;
  private final ExecutorService reader = Executors.newSingleThreadExecutor();
  private String pub;
  private String replay;

  private EngineProcess(String engine, Process process, Path stderr) {
    this.engine = engine;
    this.process = process;
    this.stderr = stderr;
    this.in = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Starts the engine's publisher: one per rank, PUB on base + rank, replay on base' + rank. */
  static EngineProcess start(String engine, int dpSize) throws Exception {
    PythonEnv.Env env = PythonEnv.get();
    Path err = Files.createTempFile("engine-" + engine, ".log");
    Process p =
        new ProcessBuilder(
                env.python().toString(),
                env.driver().toString(),
                engine,
                env.wheel(engine).toString())
            .redirectError(err.toFile())
            .start();
    EngineProcess e = new EngineProcess(engine, p, err);
    e.answer(); // the driver's "ready" line: the wheel's modules loaded
    Map<?, ?> started = e.call(Map.of("op", "start", "dp_size", dpSize, "topic", "kv-events"));
    e.pub = (String) started.get("pub");
    e.replay = (String) started.get("replay");
    return e;
  }

  /** The PUB endpoint of rank 0 (rank r at its port + r). */
  String pub() {
    return pub;
  }

  /** The replay ROUTER endpoint of rank 0. */
  String replay() {
    return replay;
  }

  /** Declares a request whose blocks later events name; returns its full blocks. */
  int request(String id, int[] tokens, int blockSize, String lora, String salt) throws Exception {
    Map<String, Object> cmd = new LinkedHashMap<>();
    cmd.put("op", "request");
    cmd.put("id", id);
    cmd.put("tokens", Arrays.stream(tokens).boxed().toList());
    cmd.put("block_size", blockSize);
    cmd.put("lora", lora);
    cmd.put("salt", salt);
    return ((Number) call(cmd).get("blocks")).intValue();
  }

  /** Publishes one batch on {@code rank}; returns its engine sequence once it is sent. */
  @SafeVarargs
  final long publish(int rank, Map<String, Object>... events) throws Exception {
    return publish(rank, false, events);
  }

  /** A batch the wire loses on its way to every subscriber (sequenced and kept for replay). */
  @SafeVarargs
  final long publishLost(int rank, Map<String, Object>... events) throws Exception {
    return publish(rank, true, events);
  }

  private long publish(int rank, boolean lost, Map<String, Object>[] events) throws Exception {
    Map<String, Object> cmd = new LinkedHashMap<>();
    cmd.put("op", "publish");
    cmd.put("rank", rank);
    cmd.put("events", List.of(events));
    cmd.put("drop_live", lost);
    return ((Number) call(cmd).get("seq")).longValue();
  }

  /** Until a subscriber (the router, the relay) is connected to rank's PUB socket. */
  void awaitSubscriber(int rank) throws Exception {
    call(Map.of("op", "await_subscriber", "rank", rank));
  }

  /** The engine restarts: new publishers on the same ports, sequences from 0, no replay buffer. */
  void restart() throws Exception {
    call(Map.of("op", "restart"));
  }

  private Map<?, ?> call(Map<String, Object> cmd) throws Exception {
    in.write(Json.write(cmd));
    in.write('\n');
    in.flush();
    Map<?, ?> a = answer();
    if (!Boolean.TRUE.equals(a.get("ok"))) {
      throw new AssertionError(engine + " driver: " + a.get("error") + "\n" + log());
    }
    return a;
  }

  private Map<?, ?> answer() throws Exception {
    Future<String> line = reader.submit(out::readLine);
    String s;
    try {
      s = line.get(60, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError(engine + " driver did not answer in 60 s\n" + log());
    }
    if (s == null) {
      throw new AssertionError(engine + " driver exited\n" + log());
    }
    return (Map<?, ?>) Json.parse(s);
  }

  private String log() {
    try {
      return Files.readString(stderr, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() throws Exception {
    try {
      if (process.isAlive()) {
        in.write(Json.write(Map.of("op", "stop")) + "\n");
        in.flush();
        in.close();
      }
    } catch (IOException ignored) {
      // already gone
    }
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    reader.shutdownNow();
    Files.deleteIfExists(stderr);
  }

  /**
   * Token ids 1000 + seed * 7919 + i: a distinct prompt per seed (the router hashes ids as given).
   */
  static int[] tokens(int seed, int n) {
    int[] t = new int[n];
    for (int i = 0; i < n; i++) {
      t[i] = 1000 + seed * 7919 + i;
    }
    return t;
  }

  static List<Integer> list(int[] t) {
    return new ArrayList<>(Arrays.stream(t).boxed().toList());
  }
}
