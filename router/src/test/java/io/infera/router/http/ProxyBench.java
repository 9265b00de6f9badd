package io.infera.router.http;

import io.infera.router.json.Json;
import io.vertx.core.Vertx;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The router's request-path numbers, with the router in its own process so its CPU can be read from
 * /proc:
 *
 * <ol>
 *   <li>added latency at a fixed open-loop rate: the same small chat request sent straight to a
 *       stub engine and through the router, median and p99 of each;
 *   <li>the peak rate before the router's added median latency doubles;
 *   <li>router CPU per request for a ~32,000-token chat prompt, cold and as the next turn of a
 *       conversation it has seen (prefix reuse).
 * </ol>
 *
 * Run: {@code ./mvnw -B -q -pl router -am test-compile exec:exec -Dexec.executable=java
 * -Dexec.classpathScope=test -Dexec.args="-cp %classpath io.infera.router.http.ProxyBench"}. The
 * stub engine and the load generator share the machine's two cores with the router.
 */
public final class ProxyBench {

  private ProxyBench() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
    Vertx vertx = Vertx.vertx();
    StubEngine stub = new StubEngine(vertx, "w0");
    int routerPort = 18000 + new Random().nextInt(1000);
    Path cfg = Files.createTempFile("router", ".yaml");
    Files.writeString(
        cfg,
        "model: bench\ntokenizer: {path: 'builtin:qwen3'}\nevents: {transport: inproc}\n"
            + "listen: {host: 127.0.0.1, port: "
            + routerPort
            + "}\ndiscovery: {workers: [{id: w0, url: '"
            + stub.url()
            + "'}]}\n");
    Process router =
        new ProcessBuilder(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx1g",
                "-cp",
                System.getProperty("java.class.path"),
                "io.infera.router.cli.InferaRouter",
                "serve",
                "--config",
                cfg.toString())
            .redirectOutput(new File("/tmp/proxybench-router.log"))
            .redirectErrorStream(true)
            .start();
    try {
      HttpClient http =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .executor(Executors.newFixedThreadPool(4))
              .build();
      String routerUrl = "http://127.0.0.1:" + routerPort;
      waitReady(http, routerUrl);
      String small = "{\"model\":\"bench\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
      // Warm both paths (JIT, connection pools).
      run(http, stub.url(), small, 300, 5);
      run(http, routerUrl, small, 300, 5);

      System.out.println(
          "== added latency, small non-streaming chat, open loop, " + seconds + " s per run");
      double[] base = null;
      double baseAdded = -1;
      for (int rate : new int[] {500, 1000, 1500, 2000, 2500, 3000}) {
        double[] direct = run(http, stub.url(), small, rate, seconds);
        double[] via = run(http, routerUrl, small, rate, seconds);
        double added = via[0] - direct[0];
        double addedP99 = via[1] - direct[1];
        System.out.printf(
            "rate=%d/s direct p50=%.3f ms p99=%.3f ms | router p50=%.3f ms p99=%.3f ms | added p50=%.3f ms p99=%.3f ms | errors direct=%d router=%d achieved=%.0f/s%n",
            rate,
            direct[0],
            direct[1],
            via[0],
            via[1],
            added,
            addedP99,
            (long) direct[2],
            (long) via[2],
            via[3]);
        if (base == null) {
          base = via;
          baseAdded = added;
        } else if (added >= 2 * baseAdded || via[2] > 0) {
          System.out.printf("added median latency doubled (or errors) at %d/s%n", rate);
          break;
        }
      }

      System.out.println("== router CPU per request, ~32,000-token chat prompt");
      long pid = router.pid();
      List<String> cold = new ArrayList<>();
      List<String> next = new ArrayList<>();
      for (int c = 0; c < 20; c++) {
        List<Object> msgs = conversation(c, 40);
        cold.add(Json.write(Map.of("model", "bench", "messages", msgs)));
        // The same conversation one turn later: the router saw everything but the last two
        // messages.
        List<Object> more = new ArrayList<>(msgs);
        more.add(Map.of("role", "assistant", "content", "Noted."));
        more.add(Map.of("role", "user", "content", "And then? " + c));
        next.add(Json.write(Map.of("model", "bench", "messages", more)));
      }
      cpuPerRequest(http, routerUrl, pid, cold, "cold (new conversation)");
      cpuPerRequest(http, routerUrl, pid, next, "next turn (prefix reuse)");
    } finally {
      router.destroy();
      router.waitFor(10, TimeUnit.SECONDS);
      stub.close();
      vertx.close();
    }
  }

  private static void cpuPerRequest(
      HttpClient http, String url, long pid, List<String> bodies, String label) throws Exception {
    long before = cpuNanos(pid);
    long t0 = System.nanoTime();
    for (String b : bodies) {
      HttpResponse<String> r = http.send(post(url, b), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("status " + r.statusCode() + ": " + r.body());
      }
    }
    long wall = System.nanoTime() - t0;
    long cpu = cpuNanos(pid) - before;
    System.out.printf(
        "%s: %d requests, router CPU %.1f ms/request, wall %.1f ms/request, body %d KB%n",
        label,
        bodies.size(),
        cpu / 1e6 / bodies.size(),
        wall / 1e6 / bodies.size(),
        bodies.get(0).length() / 1024);
  }

  /** utime + stime of a process, from /proc (clock ticks of 10 ms). */
  private static long cpuNanos(long pid) throws Exception {
    String[] f = Files.readString(Path.of("/proc/" + pid + "/stat")).split("\\) ")[1].split(" ");
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    return ticks * 10_000_000L;
  }

  static List<Object> conversation(int id, int turns) {
    Random r = new Random(id);
    String[] words = {
      "the", "model", "router", "cache", "prefix", "token", "latency", "worker", "request", "batch",
      "kernel", "memory"
    };
    List<Object> msgs = new ArrayList<>();
    msgs.add(Map.of("role", "system", "content", "Conversation " + id + "."));
    for (int t = 0; t < turns; t++) {
      msgs.add(Map.of("role", "user", "content", text(r, words, 380)));
      if (t < turns - 1) {
        msgs.add(Map.of("role", "assistant", "content", text(r, words, 380)));
      }
    }
    return msgs;
  }

  private static String text(Random r, String[] words, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : " ").append(words[r.nextInt(words.length)]);
    }
    return sb.toString();
  }

  private static HttpRequest post(String url, String body) {
    return HttpRequest.newBuilder(URI.create(url + "/v1/chat/completions"))
        .timeout(Duration.ofSeconds(60))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build();
  }

  private static void waitReady(HttpClient http, String url) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(url + "/ready")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (Exception notYet) {
        // starting
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("router did not become ready; see /tmp/proxybench-router.log");
  }

  /** Open-loop load at {@code rate}/s: returns {p50 ms, p99 ms, errors, achieved rate}. */
  private static double[] run(HttpClient http, String url, String body, int rate, int seconds)
      throws Exception {
    int total = rate * seconds;
    long[] lat = new long[total];
    AtomicInteger errors = new AtomicInteger();
    List<CompletableFuture<?>> all = new ArrayList<>(total);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    long start = System.nanoTime();
    long intervalNanos = 1_000_000_000L / rate;
    HttpRequest req = post(url, body);
    for (int i = 0; i < total; i++) {
      long due = start + i * intervalNanos;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      int idx = i;
      long sent = due; // latency from the intended send time (no coordinated omission)
      all.add(
          http.sendAsync(req, HttpResponse.BodyHandlers.ofString())
              .whenComplete(
                  (resp, err) -> {
                    lat[idx] = System.nanoTime() - sent;
                    if (err != null || resp.statusCode() != 200) {
                      errors.incrementAndGet();
                    }
                  }));
    }
    CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
    double elapsed = (System.nanoTime() - start) / 1e9;
    timer.shutdown();
    long[] sorted = lat.clone();
    Arrays.sort(sorted);
    return new double[] {
      sorted[total / 2] / 1e6, sorted[(int) (total * 0.99)] / 1e6, errors.get(), total / elapsed
    };
  }
}
