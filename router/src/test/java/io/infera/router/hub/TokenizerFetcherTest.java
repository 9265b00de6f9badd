package io.infera.router.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TestTokenizers;
import io.infera.router.tokenize.TokenizerSource;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TokenizerFetcherTest {

  static final String MODEL = "acme/tiny";
  static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";
  static final String BASE = "/" + MODEL + "/resolve/main/";

  @TempDir Path tmp;
  FakeHub hub;
  StringWriter progress = new StringWriter();
  byte[] tokenizerJson;
  byte[] tokenizerConfig;

  @BeforeEach
  void start() throws Exception {
    hub = new FakeHub();
    tokenizerJson = Files.readAllBytes(TestTokenizers.resource("tiny-bos/tokenizer.json"));
    tokenizerConfig = Files.readAllBytes(TestTokenizers.resource("tiny-bos/tokenizer_config.json"));
  }

  @AfterEach
  void stop() {
    hub.close();
  }

  private TokenizerFetcher fetcher(String token, Duration timeout, long maxBytes) {
    return new TokenizerFetcher(
        new TokenizerFetcher.Settings(
            hub.endpoint(), token, Duration.ofSeconds(2), timeout, maxBytes, 5),
        new PrintWriter(progress, true));
  }

  private TokenizerFetcher fetcher() {
    return fetcher(null, Duration.ofSeconds(5), TokenizerFetcher.Settings.DEFAULT_MAX_FILE_BYTES);
  }

  private void serveTiny() {
    hub.file(MODEL, "main", "tokenizer.json", tokenizerJson, COMMIT);
    hub.file(MODEL, "main", "tokenizer_config.json", tokenizerConfig, COMMIT);
  }

  private Path cache() {
    return tmp.resolve("hub");
  }

  /** Nothing half-written is left: only snapshots/ and refs/ (or nothing) in the repo. */
  private void assertNoLeftovers() throws Exception {
    Path repo = cache().resolve("models--acme--tiny");
    if (!Files.exists(repo)) {
      return;
    }
    try (Stream<Path> s = Files.list(repo)) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .allMatch(n -> n.equals("snapshots") || n.equals("refs"));
    }
    Path snapshots = repo.resolve("snapshots");
    if (Files.exists(snapshots)) {
      try (Stream<Path> s = Files.list(snapshots)) {
        assertThat(s.toList()).isEmpty();
      }
    }
  }

  @Test
  void writesTheHubCacheLayoutTheRouterLoads() throws Exception {
    serveTiny();
    TokenizerFetcher.Result r =
        fetcher("hf_secret", Duration.ofSeconds(5), 1 << 20).fetch(MODEL, "main", cache());

    Path repo = cache().resolve("models--acme--tiny");
    assertThat(r.snapshot()).isEqualTo(repo.resolve("snapshots").resolve(COMMIT));
    assertThat(r.files()).containsExactly("tokenizer.json", "tokenizer_config.json");
    assertThat(Files.readString(repo.resolve("refs/main"))).isEqualTo(COMMIT);
    assertThat(Files.readAllBytes(r.snapshot().resolve("tokenizer.json"))).isEqualTo(tokenizerJson);
    assertThat(hub.seen).allMatch(s -> "Bearer hf_secret".equals(s.authorization()));
    assertThat(progress.toString())
        .contains("tokenizer.json")
        .contains("chat_template.jinja is not in acme/tiny (optional, skipped)");
    try (PromptTokenizer tok =
        PromptTokenizer.load(
            new TokenizerSource.Hub(MODEL, cache()), PromptTokenizer.Options.defaults())) {
      assertThat(tok.encodeText("hello").ids()).isNotEmpty();
    }
    assertNoLeftovers_except(r.snapshot());
  }

  private void assertNoLeftovers_except(Path snapshot) throws Exception {
    try (Stream<Path> s = Files.list(snapshot.getParent().getParent())) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("snapshots", "refs");
    }
  }

  @Test
  void noTokenMeansNoAuthorizationHeader() throws Exception {
    serveTiny();
    fetcher().fetch(MODEL, "main", cache());
    assertThat(hub.seen).isNotEmpty().allMatch(s -> s.authorization() == null);
  }

  @Test
  void aRevisionWithSlashesIsOneEncodedPathSegmentAndItsRefIsWritten() throws Exception {
    hub.file(MODEL, "refs%2Fpr%2F1", "tokenizer.json", tokenizerJson, COMMIT);
    TokenizerFetcher.Result r = fetcher().fetch(MODEL, "refs/pr/1", cache());
    assertThat(hub.seen.get(0).rawPath())
        .isEqualTo("/acme/tiny/resolve/refs%2Fpr%2F1/tokenizer.json");
    assertThat(Files.readString(cache().resolve("models--acme--tiny/refs/refs/pr/1")))
        .isEqualTo(COMMIT);
    assertThat(new TokenizerSource.Hub(MODEL, cache(), "refs/pr/1").load(true).origin())
        .contains(COMMIT);
    assertThat(r.commit()).isEqualTo(COMMIT);
  }

  @Test
  void aMirrorWithoutCommitHeadersNamesTheSnapshotAfterTheRevision() throws Exception {
    hub.file(MODEL, "main", "tokenizer.json", tokenizerJson, null);
    TokenizerFetcher.Result r = fetcher().fetch(MODEL, "main", cache());
    assertThat(r.snapshot().getFileName().toString()).isEqualTo("main");
    assertThat(new TokenizerSource.Hub(MODEL, cache(), null).load(true).tokenizerJson())
        .isEqualTo(tokenizerJson);
  }

  @Test
  void aSecondFetchReplacesTheSnapshotWhole() throws Exception {
    serveTiny();
    fetcher().fetch(MODEL, "main", cache());
    Path snap = cache().resolve("models--acme--tiny/snapshots/" + COMMIT);
    Files.writeString(snap.resolve("stale.txt"), "old");
    fetcher().fetch(MODEL, "main", cache());
    assertThat(snap.resolve("stale.txt")).doesNotExist();
    assertThat(snap.resolve("tokenizer.json")).exists();
    assertNoLeftovers_except(snap);
  }

  @ParameterizedTest
  @ValueSource(ints = {401, 403})
  void unauthorizedNamesTheModelAndTheToken(int status) throws Exception {
    hub.on(
        BASE + "tokenizer.json",
        ex ->
            FakeHub.send(
                ex,
                status,
                Map.of("X-Error-Message", "Access to model acme/tiny is restricted."),
                new byte[0]));
    assertThatThrownBy(() -> fetcher().fetch(MODEL, "main", cache()))
        .isInstanceOf(HubFetchException.class)
        .hasMessageContaining("HTTP " + status)
        .hasMessageContaining("token missing or not allowed for acme/tiny")
        .hasMessageContaining("hub says: Access to model acme/tiny is restricted.")
        .hasMessageNotContaining("\n");
    assertNoLeftovers();
  }

  @Test
  void aMissingTokenizerJsonNamesTheFileAndTheUrl() {
    assertThatThrownBy(() -> fetcher().fetch(MODEL, "v9", cache()))
        .isInstanceOf(HubFetchException.class)
        .hasMessageContaining(
            "tokenizer.json not found at "
                + hub.endpoint()
                + "/acme/tiny/resolve/v9/tokenizer.json (HTTP 404)")
        .hasMessageContaining("revision 'v9'");
  }

  @Test
  void aServerErrorIsReportedWithItsStatus() throws Exception {
    hub.on(BASE + "tokenizer.json", ex -> FakeHub.send(ex, 503, Map.of(), "busy".getBytes()));
    assertThatThrownBy(() -> fetcher().fetch(MODEL, "main", cache()))
        .hasMessageContaining("HTTP 503 for " + hub.endpoint() + BASE + "tokenizer.json");
  }

  @Test
  void aBodyAtTheLimitIsKeptAndOnePastItRefusedByContentLength() throws Exception {
    serveTiny();
    long exact = tokenizerJson.length;
    fetcher(null, Duration.ofSeconds(5), Math.max(exact, tokenizerConfig.length))
        .fetch(MODEL, "main", cache());
    Path fresh = tmp.resolve("fresh");
    assertThatThrownBy(
            () -> fetcher(null, Duration.ofSeconds(5), exact - 1).fetch(MODEL, "main", fresh))
        .isInstanceOf(HubFetchException.class)
        .hasMessageContaining("tokenizer.json from")
        .hasMessageContaining("larger than the limit of");
    try (Stream<Path> s = Files.list(fresh.resolve("models--acme--tiny"))) {
      assertThat(s.toList()).isEmpty();
    }
  }

  @Test
  void anEndlessChunkedBodyIsCutOffAtTheLimit() throws Exception {
    hub.on(
        BASE + "tokenizer.json",
        ex -> {
          ex.sendResponseHeaders(200, 0); // chunked: no length to refuse up front
          byte[] junk = new byte[64 * 1024];
          try (OutputStream out = ex.getResponseBody()) {
            for (int i = 0; i < 10_000; i++) {
              out.write(junk);
            }
          }
        });
    long t0 = System.nanoTime();
    assertThatThrownBy(
            () -> fetcher(null, Duration.ofSeconds(20), 1 << 20).fetch(MODEL, "main", cache()))
        .hasMessageContaining("larger than the limit of 1.0 MiB");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(15));
    assertNoLeftovers();
  }

  @Test
  void aTricklingServerIsCutOffAtTheTimeout() throws Exception {
    hub.on(
        BASE + "tokenizer.json",
        ex -> {
          ex.sendResponseHeaders(200, tokenizerJson.length);
          OutputStream out = ex.getResponseBody();
          for (byte b : tokenizerJson) {
            out.write(b);
            out.flush();
            sleep(200);
          }
        });
    long t0 = System.nanoTime();
    assertThatThrownBy(
            () -> fetcher(null, Duration.ofSeconds(1), 1 << 20).fetch(MODEL, "main", cache()))
        .isInstanceOf(HubFetchException.class)
        .hasMessageContaining("no complete answer for tokenizer.json")
        .hasMessageContaining("within 1 s");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    assertNoLeftovers();
  }

  @Test
  void aServerThatNeverAnswersIsCutOffAtTheTimeout() {
    hub.on(BASE + "tokenizer.json", ex -> sleep(30_000));
    assertThatThrownBy(
            () -> fetcher(null, Duration.ofSeconds(1), 1 << 20).fetch(MODEL, "main", cache()))
        .hasMessageContaining("no complete answer for tokenizer.json");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "<!doctype html><html><body>Sign in</body></html>",
        "[1, 2, 3]",
        "{\"version\": \"1.0\"}",
        "{\"model\": ",
      })
  void contentThatIsNotATokenizerIsRefused(String body) throws Exception {
    hub.file(MODEL, "main", "tokenizer.json", body.getBytes(StandardCharsets.UTF_8), COMMIT);
    assertThatThrownBy(() -> fetcher().fetch(MODEL, "main", cache()))
        .isInstanceOf(HubFetchException.class)
        .hasMessageContaining("tokenizer.json from " + hub.endpoint());
    assertNoLeftovers();
  }

  @Test
  void bytesThatAreNotUtf8AreRefused() throws Exception {
    hub.file(
        MODEL, "main", "tokenizer.json", new byte[] {'{', (byte) 0xff, (byte) 0xfe, '}'}, COMMIT);
    assertThatThrownBy(() -> fetcher().fetch(MODEL, "main", cache()))
        .hasMessageContaining("not UTF-8");
  }

  @Test
  void aRedirectLoopStopsAfterTheLimit() {
    hub.on(
        BASE + "tokenizer.json",
        ex -> FakeHub.send(ex, 302, Map.of("Location", BASE + "tokenizer.json"), new byte[0]));
    assertThatThrownBy(() -> fetcher().fetch(MODEL, "main", cache()))
        .hasMessageContaining("more than 5 redirects fetching tokenizer.json");
    assertThat(hub.seen).hasSize(6);
  }

  @Test
  void redirectsAreFollowedAndTheTokenStaysWithTheHubsOrigin() throws Exception {
    URI cdn = hub.otherOrigin().resolve("/cdn/blob");
    hub.on(
        BASE + "tokenizer.json",
        ex ->
            FakeHub.send(
                ex, 302, Map.of("Location", cdn.toString(), "X-Repo-Commit", COMMIT), new byte[0]));
    hub.on("/cdn/blob", ex -> FakeHub.send(ex, 200, Map.of(), tokenizerJson));
    hub.on(
        BASE + "tokenizer_config.json",
        ex -> FakeHub.send(ex, 307, Map.of("Location", "/relative/config"), new byte[0]));
    hub.on(
        "/relative/config",
        ex -> FakeHub.send(ex, 200, Map.of("X-Repo-Commit", COMMIT), tokenizerConfig));
    TokenizerFetcher.Result r =
        fetcher("hf_secret", Duration.ofSeconds(5), 1 << 20).fetch(MODEL, "main", cache());
    assertThat(r.commit()).isEqualTo(COMMIT);
    assertThat(r.files()).containsExactly("tokenizer.json", "tokenizer_config.json");
    assertThat(
            hub.seen.stream()
                .filter(s -> s.path().equals("/cdn/blob"))
                .findFirst()
                .orElseThrow()
                .authorization())
        .isNull();
    assertThat(
            hub.seen.stream()
                .filter(s -> s.path().equals("/relative/config"))
                .findFirst()
                .orElseThrow()
                .authorization())
        .isEqualTo("Bearer hf_secret");
  }

  @ParameterizedTest
  @ValueSource(strings = {"file:///etc/passwd", "ftp://example.com/x", "", "http://[bad"})
  void redirectsToNonHttpPlacesAreRefused(String location) {
    hub.on(
        BASE + "tokenizer.json",
        ex ->
            FakeHub.send(
                ex,
                302,
                location.isEmpty() ? Map.of() : Map.of("Location", location),
                new byte[0]));
    assertThatThrownBy(() -> fetcher().fetch(MODEL, "main", cache()))
        .isInstanceOf(HubFetchException.class)
        .hasMessageContaining("tokenizer.json");
  }

  @Test
  void aRevisionThatMovesDuringTheDownloadIsRefused() throws Exception {
    hub.file(MODEL, "main", "tokenizer.json", tokenizerJson, COMMIT);
    hub.file(MODEL, "main", "tokenizer_config.json", tokenizerConfig, COMMIT.replace('0', 'f'));
    assertThatThrownBy(() -> fetcher().fetch(MODEL, "main", cache()))
        .hasMessageContaining("moved during the download");
    assertNoLeftovers();
  }

  @Test
  void aHostileCommitHeaderIsIgnored() throws Exception {
    hub.file(MODEL, "main", "tokenizer.json", tokenizerJson, "../../../etc");
    TokenizerFetcher.Result r = fetcher().fetch(MODEL, "main", cache());
    assertThat(r.snapshot()).isEqualTo(cache().resolve("models--acme--tiny/snapshots/main"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"acme", "../etc/passwd", "acme/tiny/extra", "/acme/tiny", "acme/../x", ""})
  void badModelIdsAreRefusedBeforeAnyRequest(String model) {
    assertThatThrownBy(() -> fetcher().fetch(model, "main", cache()))
        .hasMessageContaining("--model");
    assertThat(hub.seen).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"..", "../main", "main/..", "/main", "a//b", "main/", "a b", ".hidden"})
  void badRevisionsAreRefusedBeforeAnyRequest(String revision) {
    assertThatThrownBy(() -> fetcher().fetch(MODEL, revision, cache()))
        .hasMessageContaining("--revision");
    assertThat(hub.seen).isEmpty();
  }

  @Test
  void settingsRefuseBadEndpointsAndTokens() {
    assertThatThrownBy(
            () ->
                TokenizerFetcher.Settings.fromEnv(
                    Map.of("HF_ENDPOINT", "ftp://x"), Duration.ofSeconds(1), 1))
        .hasMessageContaining("http(s) URL");
    assertThatThrownBy(
            () ->
                TokenizerFetcher.Settings.fromEnv(
                    Map.of("HF_TOKEN", "hf_a b"), Duration.ofSeconds(1), 1))
        .hasMessageContaining("HF_TOKEN");
    TokenizerFetcher.Settings s =
        TokenizerFetcher.Settings.fromEnv(
            Map.of("HF_ENDPOINT", "https://mirror.example/", "HF_TOKEN", "hf_x\n"),
            Duration.ofSeconds(1),
            1);
    assertThat(s.endpoint()).isEqualTo(URI.create("https://mirror.example"));
    assertThat(s.token()).isEqualTo("hf_x");
    assertThat(TokenizerFetcher.Settings.fromEnv(Map.of(), Duration.ofSeconds(1), 1).endpoint())
        .isEqualTo(URI.create("https://huggingface.co"));
  }

  @Test
  void serverTextIsMadeOneLineAndBounded() {
    assertThat(TokenizerFetcher.printable("a\nb\u001b[31mc", 100)).isEqualTo("a?b?[31mc");
    assertThat(TokenizerFetcher.printable("x".repeat(300), 200)).hasSize(201).endsWith("…");
    assertThat(TokenizerFetcher.printable(null, 10)).isEmpty();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
