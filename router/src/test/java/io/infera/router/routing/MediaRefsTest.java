package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.json.Json;
import io.infera.router.kv.ImageKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Detection and keys of images, audio and video in request bodies of every supported shape. */
class MediaRefsTest {

  private static final String URL = "https://example.com/cat.png";
  private static final String DATA = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==";

  private static MediaRefs.Media media(String json) throws Exception {
    return MediaRefs.of(Json.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  private static String chat(String part) {
    return "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"what?\"},"
        + part
        + "]}]}";
  }

  static List<Arguments> shapes() {
    return List.of(
        Arguments.of(
            "openai image_url object",
            chat("{\"type\":\"image_url\",\"image_url\":{\"url\":\"" + URL + "\"}}"),
            ImageKey.of(URL)),
        Arguments.of(
            "image_url as a string",
            chat("{\"type\":\"image_url\",\"image_url\":\"" + URL + "\"}"),
            ImageKey.of(URL)),
        Arguments.of(
            "untyped image_url (vLLM's simple form)",
            chat("{\"image_url\":\"" + URL + "\"}"),
            ImageKey.of(URL)),
        Arguments.of(
            "data URI: the whole URI",
            chat("{\"type\":\"image_url\",\"image_url\":{\"url\":\"" + DATA + "\"}}"),
            ImageKey.of(DATA)),
        Arguments.of(
            "responses-style input_image",
            chat("{\"type\":\"input_image\",\"image_url\":\"" + URL + "\"}"),
            ImageKey.of(URL)),
        Arguments.of(
            "image part with an image string",
            chat("{\"type\":\"image\",\"image\":\"" + URL + "\"}"),
            ImageKey.of(URL)),
        Arguments.of(
            "anthropic base64 keys like the same data URI",
            chat(
                "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\","
                    + "\"data\":\"iVBORw0KGgoAAAANSUhEUg==\"}}"),
            ImageKey.of(DATA)),
        Arguments.of(
            "anthropic url source",
            chat("{\"type\":\"image\",\"source\":{\"type\":\"url\",\"url\":\"" + URL + "\"}}"),
            ImageKey.of(URL)),
        Arguments.of(
            "anthropic file source",
            chat("{\"type\":\"image\",\"source\":{\"type\":\"file\",\"file_id\":\"file_1\"}}"),
            ImageKey.of("file:file_1")),
        Arguments.of(
            "input_audio",
            chat(
                "{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"UklGRg==\",\"format\":\"wav\"}}"),
            ImageKey.of("data:audio/wav;base64,UklGRg==")),
        Arguments.of(
            "audio_url",
            chat("{\"type\":\"audio_url\",\"audio_url\":{\"url\":\"https://x/a.wav\"}}"),
            ImageKey.of("https://x/a.wav")),
        Arguments.of(
            "video_url",
            chat("{\"type\":\"video_url\",\"video_url\":{\"url\":\"https://x/v.mp4\"}}"),
            ImageKey.of("https://x/v.mp4")),
        Arguments.of(
            "uuid without content (vLLM's cached item)",
            chat("{\"type\":\"image_url\",\"image_url\":null,\"uuid\":\"img-7\"}"),
            ImageKey.of("uuid:img-7")),
        Arguments.of(
            "anthropic tool_result content",
            "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\","
                + "\"tool_use_id\":\"t1\",\"content\":[{\"type\":\"image\",\"source\":"
                + "{\"type\":\"url\",\"url\":\""
                + URL
                + "\"}}]}]}]}",
            ImageKey.of(URL)),
        Arguments.of(
            "responses input message",
            "{\"input\":[{\"role\":\"user\",\"content\":[{\"type\":\"input_image\",\"image_url\":\""
                + URL
                + "\"}]}]}",
            ImageKey.of(URL)),
        Arguments.of(
            "responses bare part",
            "{\"input\":[{\"type\":\"input_image\",\"image_url\":\"" + URL + "\"}]}",
            ImageKey.of(URL)),
        Arguments.of(
            "top-level images list of strings",
            "{\"prompt\":\"x\",\"images\":[\"" + URL + "\"]}",
            ImageKey.of(URL)),
        Arguments.of(
            "top-level images list of objects",
            "{\"prompt\":\"x\",\"images\":[{\"url\":\"" + URL + "\"}]}",
            ImageKey.of(URL)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void eachShapeIsFoundAndKeyedByItsReference(String name, String body, long key) throws Exception {
    MediaRefs.Media m = media(body);
    assertThat(m.multimodal()).isTrue();
    assertThat(m.items()).isEqualTo(1);
    assertThat(m.keys()).containsExactly(key);
  }

  @Test
  void textOnlyRequestsCarryNothing() throws Exception {
    assertThat(media("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
        .isEqualTo(MediaRefs.Media.NONE);
    assertThat(media(chat("{\"type\":\"text\",\"text\":\"image_url\"}")).multimodal()).isFalse();
    assertThat(media("{\"prompt\":\"a picture\"}").multimodal()).isFalse();
    // a tool schema naming an image is no image
    assertThat(
            media(
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"tools\":[{\"type\":"
                        + "\"function\",\"function\":{\"parameters\":{\"type\":\"image\"}}}]}")
                .multimodal())
        .isFalse();
  }

  @Test
  void theSameImageTwiceIsOneKeyTwoItems() throws Exception {
    String part = "{\"type\":\"image_url\",\"image_url\":{\"url\":\"" + URL + "\"}}";
    MediaRefs.Media m = media(chat(part + "," + part));
    assertThat(m.items()).isEqualTo(2);
    assertThat(m.keyCount()).isEqualTo(1);
  }

  @Test
  void malformedPartsAreCountedWithoutAKey() throws Exception {
    MediaRefs.Media m =
        media(
            chat(
                "{\"type\":\"image_url\",\"image_url\":{\"url\":42}},"
                    + "{\"type\":\"image_url\"},"
                    + "{\"type\":\"image\",\"source\":\"nope\"},"
                    + "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"data\":\"AA\"}},"
                    + "{\"type\":\"input_audio\",\"input_audio\":[1,2]},"
                    + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"\"}}"));
    assertThat(m.items()).isEqualTo(6);
    assertThat(m.keyCount()).isZero();
    assertThat(m.unkeyed(MediaRefs.Unkeyed.NO_REFERENCE)).isEqualTo(6);
  }

  @Test
  void oddContainersAreIgnored() throws Exception {
    for (String body :
        List.of(
            "[]",
            "\"x\"",
            "{\"messages\":5}",
            "{\"messages\":[5,null,\"x\",[]]}",
            "{\"messages\":[{\"content\":{\"type\":\"image_url\"}}]}",
            "{\"input\":\"a string\"}",
            "{\"input\":[1,[2]]}",
            "{\"images\":\"x\"}",
            "{\"images\":[5,null,{}]}")) {
      MediaRefs.Media m = media(body);
      assertThat(m.keyCount()).as(body).isZero();
    }
  }

  @Test
  void keysStopAtTheLimitAndTheRestIsCounted() throws Exception {
    StringBuilder parts = new StringBuilder();
    int n = MediaRefs.MAX_KEYS + 5;
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        parts.append(',');
      }
      parts.append("{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/").append(i);
      parts.append(".png\"}}");
    }
    MediaRefs.Media m = media(chat(parts.toString()));
    assertThat(m.items()).isEqualTo(n);
    assertThat(m.keyCount()).isEqualTo(MediaRefs.MAX_KEYS);
    assertThat(m.unkeyed(MediaRefs.Unkeyed.TOO_MANY)).isEqualTo(5);
  }

  @Test
  void exactlyTheKeyLimitIsAllKeyed() throws Exception {
    StringBuilder parts = new StringBuilder();
    for (int i = 0; i < MediaRefs.MAX_KEYS; i++) {
      parts.append(i > 0 ? "," : "").append("{\"image_url\":\"https://x/").append(i).append("\"}");
    }
    MediaRefs.Media m = media(chat(parts.toString()));
    assertThat(m.keyCount()).isEqualTo(MediaRefs.MAX_KEYS);
    assertThat(m.unkeyed(MediaRefs.Unkeyed.TOO_MANY)).isZero();
  }

  @Test
  void aUrlAtTheLengthLimitIsKeyedOnePastItIsNot() throws Exception {
    String base = "https://x/";
    String at = base + "a".repeat(MediaRefs.MAX_URL_CHARS - base.length());
    String past = at + "a";
    assertThat(media(chat("{\"image_url\":\"" + at + "\"}")).keyCount()).isEqualTo(1);
    MediaRefs.Media m = media(chat("{\"image_url\":\"" + past + "\"}"));
    assertThat(m.items()).isEqualTo(1);
    assertThat(m.keyCount()).isZero();
    assertThat(m.unkeyed(MediaRefs.Unkeyed.TOO_LONG)).isEqualTo(1);
    // inline content is bounded by the body limit only: a long data URI is keyed whole
    String data = "data:image/png;base64," + "A".repeat(3 * MediaRefs.MAX_URL_CHARS);
    assertThat(media(chat("{\"image_url\":\"" + data + "\"}")).keys())
        .containsExactly(ImageKey.of(data));
  }

  @Test
  void theScanStopsAtThePartBudget() {
    List<Object> content = new ArrayList<>();
    for (int i = 0; i < MediaRefs.MAX_PARTS + 100; i++) {
      content.add(Map.of("type", "image_url", "image_url", "https://x/" + (i % 10)));
    }
    Map<String, Object> body =
        Map.of("messages", List.of(Map.of("role", "user", "content", content)));
    MediaRefs.Media m = MediaRefs.of(body);
    assertThat(m.items()).isEqualTo(MediaRefs.MAX_PARTS);
    assertThat(m.keyCount()).isEqualTo(10);
  }

  @Test
  void nestingDeeperThanTheLimitIsNotFollowed() {
    Object content = List.of(Map.of("type", "image_url", "image_url", URL));
    for (int i = 0; i < MediaRefs.MAX_DEPTH; i++) {
      content = List.of(Map.of("type", "tool_result", "content", content));
    }
    Map<String, Object> body =
        Map.of("messages", List.of(Map.of("role", "user", "content", content)));
    assertThat(MediaRefs.of(body).multimodal()).isFalse();
  }

  /** Random JSON-like trees salted with media-looking parts: never throws, always bounded. */
  @Property(tries = 1000)
  void anyBodyIsScannedWithoutThrowing(@ForAll long seed) {
    Random r = new Random(seed);
    Object body = randomValue(r, 0);
    MediaRefs.Media m = MediaRefs.of(body);
    assertThat(m.items()).isBetween(0, MediaRefs.MAX_PARTS);
    assertThat(m.keyCount()).isBetween(0, Math.min(m.items(), MediaRefs.MAX_KEYS));
    int unkeyed = 0;
    for (MediaRefs.Unkeyed u : MediaRefs.Unkeyed.values()) {
      unkeyed += m.unkeyed(u);
    }
    assertThat(m.keyCount() + unkeyed).isLessThanOrEqualTo(m.items());
    // deterministic: the same body, the same keys
    assertThat(MediaRefs.of(body)).isEqualTo(m);
  }

  @Property(tries = 300)
  void randomBytesNeverEscapeTheParserOrTheScan(@ForAll byte[] bytes) {
    Object parsed;
    try {
      parsed = Json.parse(bytes);
    } catch (Exception e) {
      return; // not JSON: refused before the scan
    }
    MediaRefs.of(parsed);
  }

  private static final String[] KEYS = {
    "messages",
    "content",
    "type",
    "image_url",
    "url",
    "image",
    "source",
    "data",
    "media_type",
    "input_audio",
    "format",
    "uuid",
    "input",
    "images",
    "tool_result",
    "file_id",
    "role"
  };
  private static final String[] TYPES = {
    "image_url",
    "input_image",
    "image",
    "input_audio",
    "audio_url",
    "video_url",
    "tool_result",
    "base64",
    "url",
    "file",
    "text",
    "image_embeds",
    "image_pil"
  };

  private static Object randomValue(Random r, int depth) {
    int kind = depth > 5 ? r.nextInt(4) : r.nextInt(7);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return r.nextLong();
      case 2:
        return r.nextBoolean() ? TYPES[r.nextInt(TYPES.length)] : "https://x/" + r.nextInt(50);
      case 3:
        return r.nextBoolean();
      case 4:
      case 5:
        Map<String, Object> m = new LinkedHashMap<>();
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
          m.put(KEYS[r.nextInt(KEYS.length)], randomValue(r, depth + 1));
        }
        if (r.nextInt(3) == 0) {
          m.put("type", TYPES[r.nextInt(TYPES.length)]);
        }
        return m;
      default:
        List<Object> l = new ArrayList<>();
        int k = r.nextInt(6);
        for (int i = 0; i < k; i++) {
          l.add(randomValue(r, depth + 1));
        }
        return l;
    }
  }
}
