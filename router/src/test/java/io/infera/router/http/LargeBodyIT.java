package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.json.Json;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bodies above {@link Upstream#SLICE_BYTES} go to the worker in slices: the worker must still see
 * the client's body byte for byte, with its length, at and around the slice size and far above it.
 */
class LargeBodyIT {

  private static Vertx vertx;
  private static StubEngine a;
  private static RouterHarness router;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    a = new StubEngine(vertx, "a");
    router = RouterHarness.start(vertx, List.of(a), "limits: {maxBodyBytes: 16777216}\n");
    await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 200);
  }

  @AfterAll
  static void stop() throws Exception {
    router.close();
    a.close();
    vertx.close();
  }

  /** A completion body of exactly {@code bytes} bytes (ASCII). */
  private static String body(int bytes) {
    String head = "{\"model\":\"Qwen/Qwen3-0.6B\",\"max_tokens\":1,\"prompt\":\"";
    String tail = "\"}";
    StringBuilder sb = new StringBuilder(bytes).append(head);
    int words = 0;
    while (sb.length() < bytes - tail.length()) {
      sb.append(words++ % 7 == 0 ? ' ' : (char) ('a' + words % 26));
    }
    sb.setLength(bytes - tail.length());
    return sb.append(tail).toString();
  }

  @Test
  void bodiesAroundAndFarAboveTheSliceSizeArriveByteForByte() throws Exception {
    int slice = Upstream.SLICE_BYTES;
    for (int size : new int[] {slice - 1, slice, slice + 1, 3 * slice, 13 * slice + 12_345}) {
      String sent = body(size);
      assertThat(sent).hasSize(size);
      assertThat(Json.parse(sent)).isInstanceOf(java.util.Map.class);
      int before = a.seen().size();
      HttpResponse<String> r = router.post("/v1/completions", sent);
      assertThat(r.statusCode()).as("size %d: %s", size, r.body()).isEqualTo(200);
      assertThat(a.seen()).hasSize(before + 1);
      StubEngine.Seen seen = a.seen().get(before);
      assertThat(seen.body().length()).as("size %d", size).isEqualTo(size);
      assertThat(seen.body()).as("size %d", size).isEqualTo(sent);
      assertThat(seen.headers()).containsEntry("content-length", Integer.toString(size));
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> router.inFlight() == 0 && router.activeBlocks() == 0);
  }
}
