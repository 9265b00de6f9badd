package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.StringLength;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;

/** Image keys are XXH3-64 (seed 0) of the reference's UTF-8 bytes, whichever path hashes them. */
class ImageKeyTest {

  private static long reference(String s) {
    return LongHashFunction.xx3().hashBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void anAsciiReferenceIsHashedAsItsBytes() {
    for (String s :
        new String[] {
          "",
          "a",
          "https://example.com/cat.png",
          "data:image/png;base64," + "iVBORw0KGgo".repeat(500),
          "x".repeat(17),
          "y".repeat(240),
          "z".repeat(241)
        }) {
      assertThat(ImageKey.of(s)).as("length %d", s.length()).isEqualTo(reference(s));
    }
  }

  @Test
  void aReferenceWithOtherCharactersIsHashedAsItsUtf8Bytes() {
    String s = "https://example.com/bilder/größe-🐈.png";
    assertThat(ImageKey.of(s)).isEqualTo(reference(s));
  }

  @Test
  void joinedPartsKeyLikeTheJoinedString() {
    assertThat(ImageKey.ofJoined("data:", "image/png", ";base64,", "AAAA"))
        .isEqualTo(ImageKey.of("data:image/png;base64,AAAA"));
    assertThat(ImageKey.ofJoined("", "x", "")).isEqualTo(ImageKey.of("x"));
  }

  @Test
  void differentImagesGetDifferentKeys() {
    assertThat(ImageKey.of("https://a/1.png")).isNotEqualTo(ImageKey.of("https://a/2.png"));
  }

  @Property(tries = 500)
  void everyStringKeysLikeItsUtf8Bytes(@ForAll @StringLength(max = 600) String s) {
    assertThat(ImageKey.of(s)).isEqualTo(reference(s));
  }

  @Property(tries = 300)
  void anyPartitionKeysLikeTheWhole(
      @ForAll @StringLength(max = 200) String a,
      @ForAll @StringLength(max = 200) String b,
      @ForAll @StringLength(max = 200) String c) {
    assertThat(ImageKey.ofJoined(a, b, c)).isEqualTo(ImageKey.of(a + b + c));
  }
}
