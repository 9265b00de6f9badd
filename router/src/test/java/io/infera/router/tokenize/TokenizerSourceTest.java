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
  void eachMissingPieceOfTheCacheIsNamedByTheFileLookedFor() throws Exception {
    Path cache = tmp.resolve("hub");
    Path repo = cache.resolve("models--acme--tiny");
    Path snap = repo.resolve("snapshots").resolve("abc123");
    Files.createDirectories(repo.resolve("refs"));
    Files.writeString(repo.resolve("refs/main"), "abc123\n");
    // refs/main names a snapshot that is not there
    assertThatThrownBy(() -> new TokenizerSource.Hub("acme/tiny", cache).load(true))
        .hasMessageStartingWith(
            snap.resolve("tokenizer.json")
                + " not found ("
                + repo.resolve("refs/main")
                + " names 'abc123';");
    // the snapshot is there, tokenizer.json is not
    Files.createDirectories(snap);
    Files.writeString(snap.resolve("tokenizer_config.json"), "{}");
    assertThatThrownBy(() -> new TokenizerSource.Hub("acme/tiny", cache).load(true))
        .hasMessageStartingWith(
            snap.resolve("tokenizer.json") + " not found (mount a Hugging Face cache");
    // an explicit revision never falls back to another snapshot
    Files.delete(snap.resolve("tokenizer_config.json"));
    copyTiny(snap);
    assertThat(new TokenizerSource.Hub("acme/tiny", cache).load(true).origin()).contains("abc123");
    assertThatThrownBy(() -> new TokenizerSource.Hub("acme/tiny", cache, "v2").load(true))
        .hasMessageStartingWith(
            repo.resolve("snapshots/v2/tokenizer.json")
                + " not found (no "
                + repo.resolve("refs/v2"));
    // a commit given as the revision is its snapshot directory
    assertThat(new TokenizerSource.Hub("acme/tiny", cache, "abc123").load(true).origin())
        .contains("abc123");
  }

  @Test
  void missingFilesAreClearErrorsNamingThePath() throws Exception {
    Map<String, String> env = Map.of("HF_HUB_CACHE", tmp.resolve("hub").toString());
    assertThatThrownBy(() -> TokenizerSource.resolve("acme/absent", env).load(true))
        .isInstanceOf(TokenizerException.class)
        .hasMessage(
            tmp.resolve("hub/models--acme--absent/snapshots/main/tokenizer.json")
                + " not found (no "
                + tmp.resolve("hub/models--acme--absent/refs/main")
                + "; mount a Hugging Face cache or use spec.router.tokenizer.download; see"
                + " docs/operations.md)");
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
