package io.infera.router.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.cli.InferaRouter;
import io.infera.router.json.Json;
import io.vertx.core.Vertx;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A router given RouterConfig keys it does not know (docs/contracts.md, "Version skew"): it serves,
 * and says which keys it ignored in {@code /v1/admin/status} and {@code /metrics}; {@code serve
 * --strict-config} and {@code mustUnderstand} refuse such a file with exit code 2.
 */
class UnknownConfigKeysIT {

  static Vertx vertx;

  @BeforeAll
  static void vertx() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void closeVertx() {
    vertx.close();
  }

  @Test
  void ignoredKeysAreReportedAndTheRouterServes() throws Exception {
    StubEngine a = new StubEngine(vertx, "a");
    try (RouterHarness router =
        RouterHarness.startLenient(
            vertx,
            List.of(a),
            "limits: {retries: 1, hedgeAfterMs: 50}\nfutureFeature: {enabled: true}\n")) {
      await().atMost(Duration.ofSeconds(10)).until(() -> router.get("/ready").statusCode() == 200);
      Map<?, ?> status = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/status").body());
      @SuppressWarnings("unchecked")
      Map<Object, Object> config = (Map<Object, Object>) status.get("config");
      assertThat(config)
          .containsEntry("ignored_keys", List.of("futureFeature", "limits.hedgeAfterMs"))
          .containsEntry("ignored_key_count", 2L);
      assertThat(router.adminGet("/metrics").body()).contains("infera_config_ignored_keys 2.0");
      String chat =
          "{\"model\":\"Qwen/Qwen3-0.6B\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
      assertThat(router.post("/v1/chat/completions", chat).statusCode()).isEqualTo(200);
    } finally {
      a.close();
    }
  }

  @Test
  void aKnownDocumentReportsNothing() throws Exception {
    StubEngine a = new StubEngine(vertx, "a");
    try (RouterHarness router = RouterHarness.startLenient(vertx, List.of(a), "")) {
      Map<?, ?> status = (Map<?, ?>) Json.parse(router.adminGet("/v1/admin/status").body());
      @SuppressWarnings("unchecked")
      Map<Object, Object> config = (Map<Object, Object>) status.get("config");
      assertThat(config)
          .containsEntry("ignored_keys", List.of())
          .containsEntry("ignored_key_count", 0L);
      assertThat(router.adminGet("/metrics").body()).contains("infera_config_ignored_keys 0.0");
    } finally {
      a.close();
    }
  }

  @Test
  void strictConfigAndMustUnderstandRefuseTheFile(@TempDir Path dir) throws Exception {
    String base =
        "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
            + "discovery: {workers: [{id: w0, url: 'http://127.0.0.1:9'}]}\n";
    Path unknown = Files.writeString(dir.resolve("unknown.yaml"), base + "listen: {tls: {}}\n");
    Run strict = run("serve", "--strict-config", "--config", unknown.toString());
    assertThat(strict.code()).isEqualTo(2);
    assertThat(strict.err()).contains("invalid configuration: listen.tls: unknown key");
    Path must =
        Files.writeString(
            dir.resolve("must.yaml"), base + "listen: {tls: {}}\nmustUnderstand: [listen.tls]\n");
    Run refused = run("serve", "--config", must.toString());
    assertThat(refused.code()).isEqualTo(2);
    assertThat(refused.err())
        .contains("listen.tls: unknown key that mustUnderstand lists")
        .contains("upgrade the router");
    assertThat(run("serve", "--help").out())
        .contains("--strict-config")
        .contains("INFERA_STRICT_CONFIG");
  }

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    CommandLine cl = InferaRouter.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }
}
