package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The version-skew half of the loader (docs/contracts.md, "Version skew"): lenient loading ignores
 * and reports keys this router does not know, at any depth, except those the document lists under
 * {@code mustUnderstand}; strict loading refuses them; hostile documents stay bounded.
 */
class UnknownKeysTest {

  static final String MINIMAL =
      "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
          + "discovery:\n  workers:\n  - {id: w0, url: 'http://127.0.0.1:9001'}\n"
          + "  - {id: w1, url: 'http://127.0.0.1:9002'}\n";

  private static ConfigLoader.Loaded lenient(String yaml) throws ConfigException {
    return ConfigLoader.parse(yaml, Strictness.LENIENT);
  }

  @Test
  void aKnownDocumentIgnoresNothing() throws Exception {
    ConfigLoader.Loaded l = lenient(MINIMAL);
    assertThat(l.ignored()).isEqualTo(IgnoredKeys.NONE);
    assertThat(l.config()).isEqualTo(ConfigLoader.parse(MINIMAL));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '#',
      quoteCharacter = '"',
      value = {
        "futureTopLevel: 3#futureTopLevel",
        "tokenizer: {path: 'builtin:qwen3', cache: {dir: /hf}}#tokenizer.cache",
        "events: {nats: {compression: {ca: /x, verify: [1, 2]}}}#events.nats.compression",
        "limits: {maxBodyBytes: 2048, queueDepth: 7}#limits.queueDepth",
        "listen: {port: 9000, http2: true}#listen.http2"
      })
  void anUnknownKeyAtAnyDepthIsIgnoredAndNamed(String extra, String path) throws Exception {
    String doc =
        MINIMAL.replace("tokenizer: {path: 'builtin:qwen3'}\n", "")
            + extra
            + "\n"
            + (extra.startsWith("tokenizer") ? "" : "tokenizer: {path: 'builtin:qwen3'}\n");
    ConfigLoader.Loaded l = lenient(doc);
    assertThat(l.ignored().paths()).containsExactly(path);
    assertThat(l.ignored().total()).isEqualTo(1);
    assertThatThrownBy(() -> ConfigLoader.parse(doc))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(path + ": unknown key (expected one of ");
  }

  @Test
  void knownSettingsBesideUnknownKeysAreReadAsWithoutThem() throws Exception {
    String base = MINIMAL + "limits: {retries: 3}\npolicy: {name: round-robin}\n";
    String withUnknown =
        MINIMAL
            + "limits: {retries: 3, hedge: {after: 5}}\npolicy: {name: round-robin, temp: 0.1}\n"
            + "discovery2: x\n";
    ConfigLoader.Loaded l = lenient(withUnknown);
    assertThat(l.config()).isEqualTo(ConfigLoader.parse(base));
    assertThat(l.ignored().paths()).containsExactly("discovery2", "policy.temp", "limits.hedge");
  }

  @Test
  void listItemsAreNamedByIndex() throws Exception {
    String doc =
        "model: m\ntokenizer: {mode: engine}\ndiscovery:\n  backend: kubernetes\n  pools:\n"
            + "  - {name: a}\n  - {name: b, weight: 2}\n";
    assertThat(lenient(doc).ignored().paths()).containsExactly("discovery.pools[1].weight");
    String workers = MINIMAL.replace("id: w1,", "id: w1, tls: true,");
    assertThat(lenient(workers).ignored().paths()).containsExactly("discovery.workers[1].tls");
  }

  @Test
  void ignoringAKeyDoesNotRelaxTheValuesOfKnownOnes() {
    assertThatThrownBy(() -> lenient(MINIMAL + "limits: {retries: 99, newKey: 1}\n"))
        .hasMessageContaining("limits.retries: 99 is outside [0, 10]");
    // A value the router does not know is never ignored: it cannot guess a safe substitute.
    assertThatThrownBy(() -> lenient(MINIMAL + "policy: {name: future-policy}\n"))
        .hasMessageContaining("policy.name: unknown policy 'future-policy'");
    assertThatThrownBy(() -> lenient(MINIMAL + "events: {transport: kafka}\n"))
        .hasMessageContaining("events.transport: unknown value 'kafka'");
    // Non-string keys stay an error even inside an unknown section (the YAML tree is checked
    // before any key is looked at).
    assertThatThrownBy(() -> lenient(MINIMAL + "future: {1: x}\n"))
        .hasMessageContaining("future.1: keys must be strings");
  }

  // ------------------------------------------------------------------ mustUnderstand

  @ParameterizedTest
  @CsvSource(
      delimiter = '#',
      quoteCharacter = '"',
      value = {
        // the key itself
        "[listen.tls]#listen: {tls: {cert: /c}}#listen.tls",
        // a key inside a listed section
        "[listen]#listen: {tls: {cert: /c}}#listen.tls",
        // a listed key inside an unknown section
        "[listen.tls.cert]#listen: {tls: {cert: /c}}#listen.tls",
        // list items, with or without an index in the entry
        "['discovery.workers[].tls']#-#discovery.workers[1].tls",
        "['discovery.workers[1].tls']#-#discovery.workers[1].tls",
        "['discovery.workers[0].tls']#-#discovery.workers[1].tls",
        // a top-level key
        "[shadowTraffic]#shadowTraffic: {to: other-namespace}#shadowTraffic"
      })
  void aMustUnderstandKeyThisRouterLacksIsRefusedEvenLeniently(
      String entries, String extra, String path) {
    String doc =
        (extra.equals("-")
                ? MINIMAL.replace("id: w1,", "id: w1, tls: true,")
                : MINIMAL + extra + "\n")
            + "mustUnderstand: "
            + entries
            + "\n";
    assertThatThrownBy(() -> lenient(doc))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(path + ": unknown key that mustUnderstand lists")
        .hasMessageContaining("upgrade the router");
  }

  @Test
  void mustUnderstandOfKnownOrAbsentKeysChangesNothing() throws Exception {
    ConfigLoader.Loaded l =
        lenient(
            MINIMAL
                + "mustUnderstand: [limits.retries, tokenizer, listen.tls]\n"
                + "listen: {port: 9000, other: 1}\nlimits: {retries: 2}\n");
    assertThat(l.ignored().paths()).containsExactly("listen.other");
    assertThat(l.config().limits().retries()).isEqualTo(2);
    // Known to this router, so also accepted strictly.
    assertThat(ConfigLoader.parse(MINIMAL + "mustUnderstand: [limits.retries]\n").model())
        .isEqualTo("m");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '#',
      quoteCharacter = '"',
      value = {
        "mustUnderstand: listen.tls#mustUnderstand: expected a list of strings",
        "mustUnderstand: [{a: b}]#mustUnderstand: expected a list of strings",
        "mustUnderstand: [1]#mustUnderstand: expected a list of strings",
        "mustUnderstand: ['']#mustUnderstand: '' is not a key path",
        "mustUnderstand: ['listen..tls']#mustUnderstand: 'listen..tls' is not a key path",
        "mustUnderstand: ['a b']#mustUnderstand: 'a b' is not a key path",
        "mustUnderstand: ['pools[x]']#mustUnderstand: 'pools[x]' is not a key path",
        "mustUnderstand: ['.listen']#mustUnderstand: '.listen' is not a key path"
      })
  void malformedMustUnderstandIsAnError(String line, String message) {
    assertThatThrownBy(() -> lenient(MINIMAL + line + "\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(message);
  }

  @Test
  void mustUnderstandHasABudget() throws Exception {
    String atLimit =
        MINIMAL
            + "mustUnderstand: ["
            + String.join(
                ", ", java.util.Collections.nCopies(ConfigLoader.MAX_MUST_UNDERSTAND, "listen.tls"))
            + "]\n";
    assertThat(lenient(atLimit).ignored()).isEqualTo(IgnoredKeys.NONE);
    String past = atLimit.replace("[listen.tls,", "[listen.tls, listen.tls,");
    assertThatThrownBy(() -> lenient(past))
        .hasMessageContaining(
            "mustUnderstand: "
                + (ConfigLoader.MAX_MUST_UNDERSTAND + 1)
                + " entries, at most "
                + ConfigLoader.MAX_MUST_UNDERSTAND);
    String longest = "a".repeat(ConfigNode.MAX_KEY_PATH);
    assertThat(lenient(MINIMAL + "mustUnderstand: [" + longest + "]\n").ignored().total()).isZero();
    assertThatThrownBy(() -> lenient(MINIMAL + "mustUnderstand: [" + longest + "a]\n"))
        .hasMessageContaining("is not a key path");
  }

  // ------------------------------------------------------------------ hostile documents

  @Test
  void theListingStopsAtItsBudgetButTheCountDoesNot() throws Exception {
    assertThat(lenient(MINIMAL + unknownKeys(IgnoredKeys.MAX_LISTED)).ignored())
        .satisfies(
            i -> {
              assertThat(i.paths()).hasSize(IgnoredKeys.MAX_LISTED).startsWith("k0");
              assertThat(i.total()).isEqualTo(IgnoredKeys.MAX_LISTED);
            });
    assertThat(lenient(MINIMAL + unknownKeys(IgnoredKeys.MAX_LISTED + 1)).ignored())
        .satisfies(
            i -> {
              assertThat(i.paths()).hasSize(IgnoredKeys.MAX_LISTED).doesNotContain("k64");
              assertThat(i.total()).isEqualTo(IgnoredKeys.MAX_LISTED + 1);
            });
  }

  @Test
  void thirtyThousandUnknownKeysAreCountedQuickly() {
    String doc = MINIMAL + unknownKeys(30_000) + "mustUnderstand: [listen.tls, a.b.c]\n";
    IgnoredKeys i =
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
            Duration.ofSeconds(20), () -> lenient(doc).ignored());
    assertThat(i.total()).isEqualTo(30_000);
    assertThat(i.paths()).hasSize(IgnoredKeys.MAX_LISTED);
  }

  @Test
  void aDocumentPastTheSizeLimitIsRefused() {
    // 4 Mi code points at most: a key list that large never reaches the key checks.
    String doc = MINIMAL + "future: '" + "x".repeat(4 * 1024 * 1024) + "'\n";
    assertThat(doc.length()).isGreaterThan(4 * 1024 * 1024);
    assertThatThrownBy(() -> lenient(doc)).hasMessageContaining("invalid YAML");
  }

  @Test
  void hostileKeyNamesArePrintableAndShort() throws Exception {
    ConfigLoader.Loaded l =
        lenient(
            MINIMAL
                + "\"evil\\nINFO forged log line\": 1\n"
                + "\"\\u00e9t\\u00e9\\u0007\": 2\n"
                + "listen: {\""
                // SnakeYAML caps a simple key at 1024 characters; still far past the listing's cap.
                + "x".repeat(1_000)
                + "\": 3}\n");
    assertThat(l.ignored().paths())
        .containsExactly(
            "evil\\u000aINFO forged log line",
            "\\u00e9t\\u00e9\\u0007",
            "listen." + "x".repeat(IgnoredKeys.MAX_PATH_CHARS - 10) + "...");
    assertThat(l.ignored().paths()).allMatch(p -> p.length() <= IgnoredKeys.MAX_PATH_CHARS);
    assertThatThrownBy(() -> ConfigLoader.parse(MINIMAL + "\"a\\nb\": 1\n"))
        .hasMessageStartingWith("a\\u000ab: unknown key");
  }

  @Test
  void printableKeepsAPathOfExactlyTheLimit() {
    String exact = "k".repeat(IgnoredKeys.MAX_PATH_CHARS);
    assertThat(IgnoredKeys.printable(exact)).isEqualTo(exact);
    assertThat(IgnoredKeys.printable(exact + "k"))
        .hasSize(IgnoredKeys.MAX_PATH_CHARS)
        .endsWith("...");
    String escapes = "k".repeat(IgnoredKeys.MAX_PATH_CHARS - 2) + "\n";
    assertThat(IgnoredKeys.printable(escapes)).hasSize(IgnoredKeys.MAX_PATH_CHARS).endsWith("...");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '#',
      quoteCharacter = '"',
      value = {
        // Constructors that fail with other exceptions than YAMLException.
        "future: !!binary '@@@@'",
        "future: !!timestamp 'not a time'",
        "future: !!int '0xZZ'",
        "future: !!float 'x'",
        "future: !!set [a]",
        "future: !!omap {a: 1}",
        "future: !!pairs a",
        "future: !!map [a]",
        "future: !!str {a: 1}",
        "future: !!java.io.File /x"
      })
  void typedScalarsThatDoNotConstructAreAConfigException(String line) {
    assertThatThrownBy(() -> lenient(MINIMAL + line + "\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("invalid YAML");
  }

  @Test
  void deepUnknownSectionsAreBoundedByTheParser() throws Exception {
    // Moderately deep: ignored whole, without walking it.
    assertThat(lenient(MINIMAL + "future: " + nested(40) + "\n").ignored().paths())
        .containsExactly("future");
    // Past the YAML nesting limit: an error, never a StackOverflowError.
    assertThatThrownBy(() -> lenient(MINIMAL + "future: " + nested(5_000) + "\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("invalid YAML");
    assertThatThrownBy(() -> lenient(MINIMAL + "future: " + "[".repeat(5_000) + "\n"))
        .isInstanceOf(ConfigException.class);
  }

  @Test
  void aliasBombsUnderUnknownKeysAreRefused() {
    StringBuilder sb = new StringBuilder(MINIMAL).append("future:\n  a0: &a0 [x, x]\n");
    for (int i = 1; i < 30; i++) {
      sb.append("  a").append(i).append(": &a").append(i).append(" [*a").append(i - 1);
      sb.append(", *a").append(i - 1).append("]\n");
    }
    assertThatThrownBy(() -> lenient(sb.toString()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("invalid YAML");
  }

  // ------------------------------------------------------------------ file and strictness

  @Test
  void readHonoursTheStrictness(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("c.yaml");
    Files.writeString(file, MINIMAL + "future: 1\n");
    assertThat(ConfigLoader.read(file, Map.of(), Map.of(), Strictness.LENIENT).ignored().paths())
        .containsExactly("future");
    assertThatThrownBy(() -> ConfigLoader.read(file, Map.of(), Map.of(), Strictness.STRICT))
        .hasMessageStartingWith("future: unknown key");
    assertThatThrownBy(() -> ConfigLoader.load(file, Map.of(), Map.of()))
        .hasMessageStartingWith("future: unknown key");
    // Flags and env only set known keys: nothing they do is ever ignored.
    ConfigLoader.Loaded withFlags =
        ConfigLoader.read(
            file, Map.of("INFERA_PORT", "9100"), Map.of("--block-size", "32"), Strictness.LENIENT);
    assertThat(withFlags.config().pageSize()).isEqualTo(32);
    assertThat(withFlags.config().listen().port()).isEqualTo(9100);
    assertThat(withFlags.ignored().paths()).containsExactly("future");
  }

  @Test
  void ignoredKeysRecordChecksItsShape() {
    assertThatThrownBy(() -> new IgnoredKeys(List.of("a", "b"), 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(new IgnoredKeys(List.of("a"), 5).isEmpty()).isFalse();
    assertThat(IgnoredKeys.NONE.isEmpty()).isTrue();
  }

  static String unknownKeys(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append('k').append(i).append(": ").append(i).append('\n');
    }
    return sb.toString();
  }

  static String nested(int depth) {
    return "{a: ".repeat(depth) + "1" + "}".repeat(depth);
  }
}
