package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.kv.BlockHasher;
import io.infera.router.tokenize.Prompt;
import io.infera.router.tokenize.TestTokenizers;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestAnalyzerTest {

  private static final RouterConfig CFG;

  static {
    try {
      CFG =
          ConfigLoader.parse(
              "model: m\nloraAdapters: [sql]\ntokenizer: {path: 'builtin:qwen3'}\n"
                  + "discovery: {workers: [{id: w, url: 'http://x:1'}]}\n");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private final RequestAnalyzer analyzer = new RequestAnalyzer(CFG, TestTokenizers.qwen3(), null);

  private RequestAnalyzer.Result chat(String body) {
    return analyzer.analyze(body.getBytes(StandardCharsets.UTF_8), RequestAnalyzer.Endpoint.CHAT);
  }

  private RequestAnalyzer.Result completion(String body) {
    return analyzer.analyze(
        body.getBytes(StandardCharsets.UTF_8), RequestAnalyzer.Endpoint.COMPLETIONS);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '#',
      value = {
        "not json#BadRequest#not valid JSON",
        "[1,2]#BadRequest#must be a JSON object",
        "{}#BadRequest#'messages' must be a non-empty array",
        "{\"messages\":[]}#BadRequest#non-empty",
        "{\"messages\":\"hi\"}#BadRequest#non-empty array",
        "{\"messages\":[{\"content\":\"x\"}]}#BadRequest#role",
        "{\"model\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#BadRequest#'model' must be a string",
        "{\"model\":\"other\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#UnknownModel#`other` does not exist",
        "{\"stream\":\"yes\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#BadRequest#'stream' must be a boolean",
        "{\"tools\":{},\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#BadRequest#'tools' must be an array",
        "{\"cache_salt\":1,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#BadRequest#cache_salt",
        "{\"chat_template\":7,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}#BadRequest#'chat_template' must be a string"
      })
  void malformedChatRequestsFailWithAReason(String body, String type, String message) {
    RequestAnalyzer.Result r = chat(body);
    assertThat(r).isInstanceOf(RequestAnalyzer.Result.Failed.class);
    RoutingFailure f = ((RequestAnalyzer.Result.Failed) r).failure();
    assertThat(f.getClass().getSimpleName()).isEqualTo(type);
    assertThat(f.message()).contains(message);
  }

  @Test
  void eachRequestIsHashedOnceAtEveryBlockSizeInUse() {
    int[][] sizes = {{64}};
    RequestAnalyzer a = new RequestAnalyzer(CFG, TestTokenizers.qwen3(), null, () -> sizes[0]);
    byte[] body = ("{\"prompt\":[" + "7,".repeat(139) + "7]}").getBytes(StandardCharsets.UTF_8);
    RequestAnalyzer.Analyzed x = ok(a.analyze(body, RequestAnalyzer.Endpoint.COMPLETIONS));
    assertThat(x.hashes().base()).hasSize(140 / 16);
    assertThat(x.hashes().sizes()).containsExactly(64);
    int[] ids = new int[140];
    java.util.Arrays.fill(ids, 7);
    assertThat(x.hashes().chain(64)).containsExactly(new BlockHasher(64).requestHashes(ids, 0));
    // The engine-tokenizer path hashes the same way; a size that left the fleet is not hashed.
    assertThat(a.hash(ids, 0).chain(64)).hasSize(2);
    sizes[0] = new int[0];
    assertThat(a.hash(ids, 0).sizes()).isEmpty();
    assertThat(a.hash(ids, 0).chain(64)).isNull();
  }

  @Test
  void completionPromptsInEveryShape() {
    assertThat(ok(completion("{\"prompt\":\"Once upon a time\"}")).prompt())
        .isInstanceOf(Prompt.Text.class);
    RequestAnalyzer.Analyzed tokens = ok(completion("{\"prompt\":[" + "7,".repeat(40) + "7]}"));
    assertThat(tokens.prompt()).isInstanceOf(Prompt.Tokens.class);
    assertThat(tokens.hashes().base()).hasSize(2);
    int[] sevens = new int[16];
    java.util.Arrays.fill(sevens, 7);
    assertThat(tokens.hashes().base()[0]).isEqualTo(new BlockHasher(16).hashBlock(0, sevens, 0));
    RequestAnalyzer.Analyzed batch = ok(completion("{\"prompt\":[\"a\",\"b\"]}"));
    assertThat(batch.prompt()).isInstanceOf(Prompt.Batch.class);
    assertThat(batch.hashes().base()).isEmpty();
    assertThat(batch.tokenizeFailure()).isEqualTo("batch");
    assertThat(completion("{\"prompt\":[1,\"a\"]}"))
        .isInstanceOf(RequestAnalyzer.Result.Failed.class);
    assertThat(completion("{\"prompt\":[-1]}")).isInstanceOf(RequestAnalyzer.Result.Failed.class);
  }

  @Test
  void loraAndCacheSaltChangeTheHashChain() {
    String msgs = "\"messages\":[{\"role\":\"user\",\"content\":\"" + "word ".repeat(100) + "\"}]";
    long[] plain = ok(chat("{" + msgs + "}")).hashes().base();
    long[] lora = ok(chat("{\"model\":\"sql\"," + msgs + "}")).hashes().base();
    long[] salted = ok(chat("{\"cache_salt\":\"t1\"," + msgs + "}")).hashes().base();
    assertThat(plain).hasSizeGreaterThan(3);
    assertThat(lora[0]).isNotEqualTo(plain[0]);
    assertThat(salted[0]).isNotEqualTo(plain[0]).isNotEqualTo(lora[0]);
  }

  @Test
  void aRequestsOwnChatTemplateIsRenderedInsteadOfTheModels() {
    String template = "{% for m in messages %}<<{{ m.role }}:{{ m.content }}>>{% endfor %}";
    String body =
        "{\"chat_template\":"
            + io.infera.router.json.Json.write(template)
            + ",\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}";
    RequestAnalyzer.Analyzed a = ok(chat(body));
    int[] expected = TestTokenizers.qwen3().encodeRendered("<<user:hello there>>");
    assertThat(a.tokens()).isEqualTo(expected.length);
    assertThat(((io.infera.router.tokenize.Prompt.Chat) a.prompt()).template()).isEqualTo(template);
    RequestAnalyzer.Analyzed model =
        ok(chat("{\"messages\":[{\"role\":\"user\",\"content\":\"hello there\"}]}"));
    assertThat(model.tokens()).isNotEqualTo(a.tokens());
    // A request template that does not parse is routed by load, like a failing model template.
    RequestAnalyzer.Analyzed broken = ok(chat(body.replace("{% endfor %}", "{% endif %}")));
    assertThat(broken.tokenizeFailure()).isEqualTo("template");
    assertThat(broken.hashes().base()).isEmpty();
  }

  @Test
  void aTemplateErrorRoutesByLoadInsteadOfFailing(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Files.copy(
        TestTokenizers.resource("tiny-bos").resolve("tokenizer.json"),
        dir.resolve("tokenizer.json"));
    java.nio.file.Files.writeString(
        dir.resolve("chat_template.jinja"),
        "{% if messages[0].role == 'system' %}{{ raise_exception('System role not supported') }}"
            + "{% endif %}{{ messages[0].content }}");
    try (var tok =
        io.infera.router.tokenize.PromptTokenizer.load(
            new io.infera.router.tokenize.TokenizerSource.Directory(dir),
            io.infera.router.tokenize.PromptTokenizer.Options.defaults())) {
      RequestAnalyzer a = new RequestAnalyzer(CFG, tok, null);
      RequestAnalyzer.Analyzed failed =
          ok(
              a.analyze(
                  "{\"messages\":[{\"role\":\"system\",\"content\":\"s\"}]}"
                      .getBytes(StandardCharsets.UTF_8),
                  RequestAnalyzer.Endpoint.CHAT));
      assertThat(failed.tokenizeFailure()).isEqualTo("template");
      assertThat(failed.hashes().base()).isEmpty();
    }
  }

  @Test
  void randomBodiesAlwaysGiveAResultNeverAnException() {
    Random r = new Random(4);
    String seed =
        "{\"model\":\"m\",\"stream\":false,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},"
            + "{\"role\":\"assistant\",\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}],"
            + "\"tools\":[],\"chat_template_kwargs\":{\"enable_thinking\":false}}";
    for (int i = 0; i < 3000; i++) {
      byte[] b = seed.getBytes(StandardCharsets.UTF_8);
      for (int e = 0; e < 1 + r.nextInt(3); e++) {
        b[r.nextInt(b.length)] = (byte) "{}[]\":,ab01 \\nul".charAt(r.nextInt(16));
      }
      RequestAnalyzer.Result res =
          analyzer.analyze(
              b,
              r.nextBoolean()
                  ? RequestAnalyzer.Endpoint.CHAT
                  : RequestAnalyzer.Endpoint.COMPLETIONS);
      assertThat(res).isNotNull();
    }
  }

  private static RequestAnalyzer.Analyzed ok(RequestAnalyzer.Result r) {
    assertThat(r).isInstanceOf(RequestAnalyzer.Result.Ok.class);
    return ((RequestAnalyzer.Result.Ok) r).analyzed();
  }
}
