package io.infera.sim.adversarial;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The well-behaved client: {@code threads} loops each sending a short chat completion (a few turns
 * of a conversation, so the router hashes and matches) every 50 ms over kept-alive connections, and
 * recording each answer's start, latency and outcome. Any answer but 200 is a failure.
 */
final class SteadyClient implements AutoCloseable {

  /** One answered (or failed) request. */
  record Call(long startNanos, long endNanos, int status, String error) {
    boolean ok() {
      return status == 200;
    }

    double millis() {
      return (endNanos - startNanos) / 1e6;
    }
  }

  /** What the client saw in a window. */
  record Stats(
      int requests, int failures, double p50Ms, double p99Ms, double maxMs, String firstError) {}

  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> threads = new ArrayList<>();
  private volatile int port;

  SteadyClient(int port, int threads) {
    this.port = port;
    for (int i = 0; i < threads; i++) {
      int id = i;
      Thread t = new Thread(() -> loop(id), "steady-" + i);
      t.setDaemon(true);
      this.threads.add(t);
      t.start();
    }
  }

  private void loop(int id) {
    long n = 0;
    while (running.get()) {
      String body =
          "{\"model\":\"Qwen/Qwen3-0.6B\",\"max_tokens\":4,\"messages\":["
              + "{\"role\":\"system\",\"content\":\"You are a careful assistant for client "
              + id
              + ". Answer briefly and precisely, in one short sentence.\"},"
              + "{\"role\":\"user\",\"content\":\"Question number "
              + (n++ % 50)
              + ": what is the capital of France, and why?\"}]}";
      long t0 = System.nanoTime();
      int status;
      String error = null;
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(60))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        status = r.statusCode();
        if (status != 200) {
          error = status + " " + r.body();
        }
      } catch (Exception e) {
        status = -1;
        error = e.toString();
      }
      calls.add(new Call(t0, System.nanoTime(), status, error));
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** The calls that started at or after {@code fromNanos}. */
  Stats since(long fromNanos) {
    List<Call> window = calls.stream().filter(c -> c.startNanos() >= fromNanos).toList();
    double[] ms = window.stream().mapToDouble(Call::millis).sorted().toArray();
    int failures = (int) window.stream().filter(c -> !c.ok()).count();
    String first = window.stream().filter(c -> !c.ok()).map(Call::error).findFirst().orElse(null);
    return new Stats(
        window.size(),
        failures,
        pct(ms, 0.50),
        pct(ms, 0.99),
        ms.length == 0 ? 0 : ms[ms.length - 1],
        first);
  }

  /**
   * Calls that ended at or after {@code fromNanos} and started before {@code toNanos}, whatever
   * their outcome: the router analysed each of them in that window, give or take the one call per
   * thread in flight at either end.
   */
  int overlapping(long fromNanos, long toNanos) {
    return (int)
        calls.stream().filter(c -> c.endNanos() >= fromNanos && c.startNanos() < toNanos).count();
  }

  /** The number of client threads (calls in flight at once). */
  int threads() {
    return threads.size();
  }

  /** Blocks until the client has seen {@code n} answers after {@code fromNanos}. */
  void awaitAnswers(long fromNanos, int n, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline && since(fromNanos).requests() < n) {
      Thread.sleep(20);
    }
  }

  private static double pct(double[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(65_000);
    }
  }
}
