package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import io.infera.router.routing.MediaRefs;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.VllmChat;
import io.infera.sim.engine.RequestParser.Endpoint;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The simulator serves images as opaque content: deterministic prompt tokens per image. */
class ImageTokensTest {

  private static final String MODEL = "Qwen/Qwen3-0.6B";
  private static PromptTokenizer tok;
  private static RequestParser parser;

  @BeforeAll
  static void load() {
    tok = SharedTokenizer.qwen3();
    parser = new RequestParser(tok, MODEL, 10_000);
  }

  private static List<Object> messages(String... urls) {
    List<Object> content = new java.util.ArrayList<>();
    content.add(Map.of("type", "text", "text", "What is in the picture?"));
    for (String u : urls) {
      content.add(Map.of("type", "image_url", "image_url", Map.of("url", u)));
    }
    return List.of(Map.of("role", "user", "content", content));
  }

  private static int[] ids(List<Object> messages) throws Exception {
    byte[] body = Json.write(Map.of("messages", messages)).getBytes(StandardCharsets.UTF_8);
    return parser.parse(Endpoint.CHAT, body).promptIds();
  }

  @Test
  void anImageAddsItsTokensInFrontOfTheText() throws Exception {
    List<Object> m = messages("https://x/cat.png");
    int[] text = tok.encodeChat(ChatInput.of(VllmChat.normalize(m, tok.contentFormat()))).ids();
    int[] ids = ids(m);
    int n = ImageTokens.length(MediaRefs.of(Map.of("messages", m)).key(0));
    assertThat(n).isBetween(ImageTokens.MIN_TOKENS, ImageTokens.MAX_TOKENS);
    assertThat(ids).hasSize(n + text.length);
    assertThat(Arrays.copyOfRange(ids, n, ids.length)).containsExactly(text);
    assertThat(Arrays.stream(ids, 0, n).min().getAsInt())
        .isGreaterThanOrEqualTo(ImageTokens.FIRST_ID);
  }

  @Test
  void theSameImageGivesTheSameTokensAndAnotherImageOthers() throws Exception {
    int[] a = ids(messages("https://x/cat.png"));
    int[] again = ids(messages("https://x/cat.png"));
    int[] other = ids(messages("https://x/dog.png"));
    assertThat(again).containsExactly(a);
    assertThat(other).isNotEqualTo(a);
    // no shared leading block of 16 between two images
    assertThat(Arrays.copyOf(other, 16)).isNotEqualTo(Arrays.copyOf(a, 16));
  }

  @Test
  void textOnlyChatsAreUnchanged() throws Exception {
    List<Object> m = List.of(Map.of("role", "user", "content", "hello"));
    int[] text = tok.encodeChat(ChatInput.of(VllmChat.normalize(m, tok.contentFormat()))).ids();
    assertThat(ids(m)).containsExactly(text);
  }

  @Test
  void twoImagesAddBothInOrder() throws Exception {
    int[] one = ids(messages("https://x/cat.png"));
    int[] two = ids(messages("https://x/cat.png", "https://x/dog.png"));
    int catLen =
        ImageTokens.length(MediaRefs.of(Map.of("messages", messages("https://x/cat.png"))).key(0));
    assertThat(Arrays.copyOf(two, catLen)).containsExactly(Arrays.copyOf(one, catLen));
    assertThat(two.length).isGreaterThan(one.length + ImageTokens.MIN_TOKENS - 1);
  }
}
