package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizerSourceTest {

  @TempDir Path tmp;

  private static void copyTiny(Path dir) throws Exception {
    Files.createDirectories(dir);
    Path src = TestTokenizers.resource("tiny-bos");
    Files.copy(src.resolve("tokenizer.json"), dir.resolve("tokenizer.json"));
    Files.copy(src.resolve("tokenizer_config.json"), dir.resolve("tokenizer_config.json"));
  }

  @Test
  void resolvesDirectoriesFilesBuiltinsAndHubIds() throws Exception {
    Path dir = tmp.resolve("model");
    copyTiny(dir);
    Map<String, String> env = Map.of("HF_HOME", tmp.resolve("hf").toString());
    assertThat(TokenizerSource.resolve(dir.toString(), env))
        .isInstanceOf(TokenizerSource.Directory.class);
    assertThat(TokenizerSource.resolve(dir.resolve("tokenizer.json").toString(), env))
        .isInstanceOf(TokenizerSource.JsonFile.class);
    assertThat(TokenizerSource.resolve("builtin:qwen3", env))
        .isEqualTo(new TokenizerSource.Builtin("qwen3"));
    assertThat(TokenizerSource.resolve("Qwen/Qwen3-0.6B", env))
        .isEqualTo(new TokenizerSource.Hub("Qwen/Qwen3-0.6B", tmp.resolve("hf").resolve("hub")));
  }

  @Test
  void hubIdsResolveThroughTheLocalCacheLayout() throws Exception {
    Path repo = tmp.resolve("hub").resolve("models--acme--tiny");
    copyTiny(repo.resolve("snapshots").resolve("abc123"));
    Files.createDirectories(repo.resolve("refs"));
    Files.writeString(repo.resolve("refs").resolve("main"), "abc123\n");
    TokenizerSource src =
        TokenizerSource.resolve("acme/tiny", Map.of("HF_HUB_CACHE", tmp.resolve("hub").toString()));
    ModelFiles files = src.load(true);
    assertThat(files.tokenizerJson()).isNotEmpty();
    assertThat(files.config()).containsKey("chat_template");
    assertThat(files.origin()).contains("abc123");
  }

  @Test
  void missingFilesAreClearErrorsNamingThePath() throws Exception {
    Map<String, String> env = Map.of("HF_HUB_CACHE", tmp.resolve("hub").toString());
    assertThatThrownBy(() -> TokenizerSource.resolve("acme/absent", env).load(true))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("not in the local cache")
        .hasMessageContaining(tmp.resolve("hub").toString());
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    assertThatThrownBy(() -> TokenizerSource.resolve(empty.toString(), env).load(true))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("no tokenizer.json in " + empty.toAbsolutePath());
    assertThatThrownBy(() -> TokenizerSource.resolve("./nope/nothing", env))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("no tokenizer at './nope/nothing'");
    assertThatThrownBy(() -> new TokenizerSource.Builtin("llama9").load(true))
        .hasMessageContaining("no builtin tokenizer 'llama9'");
  }

  @Test
  void malformedConfigIsAClearError() throws Exception {
    Path dir = tmp.resolve("bad");
    copyTiny(dir);
    Files.writeString(dir.resolve("tokenizer_config.json"), "{\"chat_template\": ");
    assertThatThrownBy(() -> new TokenizerSource.Directory(dir).load(true))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("invalid tokenizer_config.json");
    Files.writeString(dir.resolve("tokenizer.json"), "[1, 2");
    assertThatThrownBy(
            () -> HfTokenizer.load(Files.readAllBytes(dir.resolve("tokenizer.json")), "bad"))
        .isInstanceOf(TokenizerException.class)
        .hasMessageContaining("bad");
  }

  @Test
  void aTemplateOnlyDirectoryIsEnoughForRendering() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("template-only"));
    Files.writeString(dir.resolve("chat_template.jinja"), "{{ messages[0].content }}!");
    ModelFiles files = new TokenizerSource.Directory(dir).load(false);
    assertThat(files.tokenizerJson()).isNull();
    ChatTemplate t = ChatTemplate.from(files);
    assertThat(t.render(ChatInput.of(java.util.List.of(Map.of("role", "user", "content", "hi")))))
        .isEqualTo("hi!");
  }
}
