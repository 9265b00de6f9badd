package io.infera.router.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.infera.router.config.ConfigLoader;
import io.infera.router.http.RouterHarness;
import io.infera.router.http.StubEngine;
import io.infera.router.json.Json;
import io.infera.router.runtime.DefaultParts;
import io.infera.router.tokenize.TestTokenizers;
import io.vertx.core.Vertx;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A router whose hub tokenizer is not in its cache starts, stays not ready naming the file it
 * looked for (in /ready, /v1/admin/status and once in the log), refuses requests with that reason,
 * and becomes ready once {@code fetch-tokenizer} has filled the cache, without a restart.
 */
class TokenizerMissingIT {

  static Vertx vertx;

  @TempDir Path hfHome;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    vertx.close();
  }

  @Test
  @SuppressWarnings("unchecked")
  void notReadyNamingTheMissingFileThenReadyOnceTheCacheIsFilled() throws Exception {
    Path expected = hfHome.resolve("hub/models--acme--tiny/snapshots/main/tokenizer.json");
    // The runtime's tokenizer slot logs the load failures.
    Logger logger = (Logger) LoggerFactory.getLogger("io.infera.router.runtime.TokenizerSlot");
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    try (StubEngine engine = new StubEngine(vertx, "e");
        FakeHub hub = new FakeHub()) {
      String yaml =
          RouterHarness.yaml(List.of(engine), "")
              .replace("tokenizer: {path: 'builtin:qwen3'}", "tokenizer: {hub: acme/tiny}");
      try (RouterHarness r =
          RouterHarness.start(
              vertx,
              ConfigLoader.parse(yaml),
              new DefaultParts(Map.of("HF_HOME", hfHome.toString())))) {
        String reason =
            "tokenizer: "
                + expected
                + " not found (no "
                + hfHome.resolve("hub/models--acme--tiny/refs/main")
                + "; mount a Hugging Face cache or use spec.router.tokenizer.download; see"
                + " docs/operations.md)";
        HttpResponse<String> ready = r.get("/ready");
        assertThat(ready.statusCode()).isEqualTo(503);
        assertThat((List<Object>) ((Map<?, ?>) Json.parse(ready.body())).get("reasons"))
            .contains(reason);
        Map<?, ?> status = (Map<?, ?>) Json.parse(r.adminGet("/v1/admin/status").body());
        assertThat(status.get("ready")).isEqualTo(false);
        assertThat(((Map<?, ?>) status.get("tokenizer")).get("not_loaded_reason"))
            .isEqualTo(reason.substring("tokenizer: ".length()));
        HttpResponse<String> refused = r.post("/v1/completions", "{\"prompt\":\"hello\"}");
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body()).contains("tokenizer_unavailable").contains(expected.toString());
        assertThat(engine.seen()).noneMatch(s -> s.path().startsWith("/v1/"));

        // The init container's job, done late: the router picks the files up on its next try.
        hub.file(
            "acme/tiny",
            "main",
            "tokenizer.json",
            Files.readAllBytes(TestTokenizers.resource("tiny-bos/tokenizer.json")),
            "0123456789abcdef0123456789abcdef01234567");
        new TokenizerFetcher(
                new TokenizerFetcher.Settings(
                    hub.endpoint(), null, Duration.ofSeconds(2), Duration.ofSeconds(5), 1 << 20, 5),
                new PrintWriter(new StringWriter()))
            .fetch("acme/tiny", "main", hfHome.resolve("hub"));
        await().atMost(Duration.ofSeconds(20)).until(() -> r.get("/ready").statusCode() == 200);
        assertThat(r.post("/v1/completions", "{\"prompt\":\"hello\"}").statusCode()).isEqualTo(200);
        assertThat(
                ((Map<Object, Object>)
                    ((Map<?, ?>) Json.parse(r.adminGet("/v1/admin/status").body()))
                        .get("tokenizer")))
            .doesNotContainKey("not_loaded_reason");
      }
      assertThat(logs.list)
          .filteredOn(ev -> ev.getLevel() == Level.ERROR)
          .singleElement()
          .satisfies(ev -> assertThat(ev.getFormattedMessage()).contains(expected.toString()));
      assertThat(logs.list)
          .anySatisfy(ev -> assertThat(ev.getFormattedMessage()).contains("tokenizer loaded"));
    } finally {
      logger.detachAppender(logs);
    }
  }
}
