package io.infera.router.http;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-request header copy of the proxy: the headers an OpenAI SDK sends (13, no Connection
 * list), the same with a Connection list and an injected rank, and the hop-by-hop-only copy the
 * proxy made before {@link HeaderFilter} (the baseline).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class HeaderFilterBench {

  private static final Set<String> OLD_HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-authenticate",
          "proxy-authorization",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "host",
          "content-length");

  MultiMap typical;
  MultiMap hostile;

  @Setup
  public void setup() {
    typical = sdk(HttpHeaders.headers());
    hostile =
        sdk(HttpHeaders.headers())
            .add("Connection", "keep-alive, X-Private")
            .add("X-Private", "p")
            .add("X-Data-Parallel-Rank", "3");
  }

  private static MultiMap sdk(MultiMap m) {
    return m.add("Host", "router:8000")
        .add("Accept-Encoding", "gzip, deflate")
        .add("Connection", "keep-alive")
        .add("Accept", "application/json")
        .add("Content-Type", "application/json")
        .add("User-Agent", "OpenAI/Python 1.54.0")
        .add("X-Stainless-Lang", "python")
        .add("X-Stainless-Package-Version", "1.54.0")
        .add("X-Stainless-Os", "Linux")
        .add("X-Stainless-Arch", "x64")
        .add("X-Stainless-Runtime", "CPython")
        .add("Authorization", "Bearer sk-0123456789abcdef0123456789abcdef")
        .add("Content-Length", "1234");
  }

  @Benchmark
  public MultiMap baseline() {
    MultiMap out = HttpHeaders.headers();
    for (var h : typical) {
      if (!OLD_HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
        out.add(h.getKey(), h.getValue());
      }
    }
    return out;
  }

  @Benchmark
  public MultiMap filterTypical() {
    MultiMap out = HttpHeaders.headers();
    HeaderFilter.copy(typical, HeaderFilter.From.CLIENT, out::add);
    return out;
  }

  @Benchmark
  public MultiMap filterHostile() {
    MultiMap out = HttpHeaders.headers();
    HeaderFilter.copy(hostile, HeaderFilter.From.CLIENT, out::add);
    return out;
  }
}
