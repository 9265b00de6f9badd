package io.infera.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import io.infera.router.kv.BlockHasher;
import io.infera.router.tokenize.TestTokenizers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizeCommandTest {

  @TempDir Path tmp;

  private Path file(String name, String content) throws Exception {
    Path p = tmp.resolve(name);
    Files.writeString(p, content);
    return p;
  }

  @Test
  void renderOnlyPrintsExactlyTheRenderedTextWithoutANewline() throws Exception {
    Path msgs = file("m.json", "[{\"role\":\"user\",\"content\":\"What is 2+2?\"}]");
    CliTest.Run r =
        CliTest.run(
            "tokenize",
            "--tokenizer",
            "builtin:qwen3",
            "--messages",
            msgs.toString(),
            "--render-only");
    assertThat(r.code()).isZero();
    assertThat(r.out())
        .isEqualTo("<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n");
    CliTest.Run noGen =
        CliTest.run(
            "tokenize",
            "--tokenizer",
            "builtin:qwen3",
            "--messages",
            msgs.toString(),
            "--render-only",
            "--no-generation-prompt");
    assertThat(noGen.out()).isEqualTo("<|im_start|>user\nWhat is 2+2?<|im_end|>\n");
  }

  @Test
  void renderOnlyNeedsNoTokenizerJson() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("tpl"));
    Files.writeString(
        dir.resolve("chat_template.jinja"), "{% for m in messages %}[{{ m.content }}]{% endfor %}");
    Path msgs = file("m.json", "[{\"role\":\"user\",\"content\":\"a\"}]");
    CliTest.Run r =
        CliTest.run(
            "tokenize",
            "--tokenizer",
            dir.toString(),
            "--messages",
            msgs.toString(),
            "--render-only");
    assertThat(r.code()).isZero();
    assertThat(r.out()).isEqualTo("[a]");
  }

  @Test
  void templateErrorsExitTwoWithTheMessage() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("strict"));
    Files.writeString(
        dir.resolve("chat_template.jinja"),
        "{% if messages[0].role != 'user' %}{{ raise_exception('first message must be from the user') }}{% endif %}");
    Path msgs = file("m.json", "[{\"role\":\"assistant\",\"content\":\"a\"}]");
    CliTest.Run r =
        CliTest.run(
            "tokenize",
            "--tokenizer",
            dir.toString(),
            "--messages",
            msgs.toString(),
            "--render-only");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err()).contains("first message must be from the user").doesNotContain("\tat ");
  }

  @Test
  @SuppressWarnings("unchecked")
  void jsonOutputCarriesIdsRenderedTextAndBlockHashes() throws Exception {
    Path body =
        file(
            "req.json",
            "{\"messages\":[{\"role\":\"user\",\"content\":\""
                + "lorem ipsum ".repeat(20)
                + "\"}],"
                + "\"chat_template_kwargs\":{\"enable_thinking\":false}}");
    CliTest.Run r =
        CliTest.run(
            "tokenize",
            "--tokenizer",
            "builtin:qwen3",
            "--messages",
            body.toString(),
            "--json",
            "--block-size",
            "16");
    assertThat(r.code()).isZero();
    Map<String, Object> o = (Map<String, Object>) Json.parse(r.out());
    List<Object> ids = (List<Object>) o.get("ids");
    assertThat(((Number) o.get("tokens")).intValue()).isEqualTo(ids.size()).isGreaterThan(32);
    assertThat((String) o.get("rendered")).endsWith("<think>\n\n</think>\n\n");
    int[] arr = ids.stream().mapToInt(x -> ((Number) x).intValue()).toArray();
    List<String> expected =
        java.util.Arrays.stream(new BlockHasher(16).requestHashes(arr, 0))
            .mapToObj(BlockHasher::hex)
            .toList();
    assertThat((List<Object>) o.get("block_hashes")).isEqualTo(List.copyOf(expected));
    assertThat(arr).isEqualTo(TestTokenizers.qwen3().encodeRendered((String) o.get("rendered")));
  }

  @Test
  void badInputsExitWithOneLineMessages() throws Exception {
    CliTest.Run noFile =
        CliTest.run("tokenize", "--tokenizer", "builtin:qwen3", "--messages", "/no/such.json");
    assertThat(noFile.code()).isEqualTo(2);
    assertThat(noFile.err()).contains("no such file");
    Path notArray = file("x.json", "{\"model\":\"m\"}");
    CliTest.Run shape =
        CliTest.run("tokenize", "--tokenizer", "builtin:qwen3", "--messages", notArray.toString());
    assertThat(shape.code()).isEqualTo(2);
    assertThat(shape.err()).contains("expected a JSON array of messages");
    CliTest.Run both =
        CliTest.run("tokenize", "--tokenizer", "builtin:qwen3", "--prompt", "a", "--messages", "b");
    assertThat(both.code()).isEqualTo(2);
    CliTest.Run missing =
        CliTest.run("tokenize", "--tokenizer", tmp.resolve("none").toString(), "--prompt", "a");
    assertThat(missing.code()).isEqualTo(1);
    assertThat(missing.err()).contains("no tokenizer at");
  }
}
