package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.nats.SharedLoadCodec.MalformedException.Kind;
import io.infera.router.nats.SharedLoadMessage.WeightEntry;
import io.infera.router.nats.SharedLoadMessage.Weights;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Load message kind 4: overlap-weight estimates, and what a hostile sender cannot get through. */
class WeightsCodecTest {

  private static byte[] wire(String pool, int role, double weight, long samples) {
    byte[] name = pool.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(14 + 2 + name.length + 17);
    b.put((byte) 'I').put((byte) 'L').put((byte) 1).put((byte) 4).putLong(42L).putShort((short) 1);
    b.putShort((short) name.length).put(name).put((byte) role).putDouble(weight).putLong(samples);
    return b.array();
  }

  private static Kind kindOf(byte[] bytes) {
    try {
      SharedLoadCodec.decode(bytes);
      return null;
    } catch (SharedLoadCodec.MalformedException e) {
      return e.kind();
    }
  }

  @Test
  void estimatesRoundTrip() throws Exception {
    Weights w =
        new Weights(
            7L,
            List.of(
                new WeightEntry("workers", 0, 4.0, 1234),
                new WeightEntry("prefill-é", 1, 0.25, 0),
                new WeightEntry("d", 2, 1e6, Long.MAX_VALUE)));
    assertThat(SharedLoadCodec.decode(SharedLoadCodec.encode(w))).isEqualTo(w);
    assertThat(SharedLoadCodec.decode(wire("workers", 0, 2.0, 5)))
        .isEqualTo(new Weights(42L, List.of(new WeightEntry("workers", 0, 2.0, 5))));
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.0, -0.0, -1.0, 1e6 + 1, Double.NaN, Double.POSITIVE_INFINITY})
  void aWeightOutsideItsRangeIsRefused(double weight) {
    assertThat(kindOf(wire("workers", 0, weight, 1))).isEqualTo(Kind.INVALID);
  }

  @Test
  void anUnknownRoleOrNegativeSamplesAreRefused() {
    assertThat(kindOf(wire("workers", 3, 1.0, 1))).isEqualTo(Kind.INVALID);
    assertThat(kindOf(wire("workers", 255, 1.0, 1))).isEqualTo(Kind.INVALID);
    assertThat(kindOf(wire("workers", 0, 1.0, -1))).isEqualTo(Kind.INVALID);
  }

  @Test
  void poolNamesAreBoundedUtf8AndNotBlank() {
    assertThat(kindOf(wire("", 0, 1.0, 1))).isIn(Kind.INVALID, Kind.TRUNCATED);
    assertThat(kindOf(wire("   ", 0, 1.0, 1))).isEqualTo(Kind.INVALID);
    assertThat(kindOf(wire("p".repeat(SharedLoadMessage.MAX_POOL_BYTES), 0, 1.0, 1))).isNull();
    assertThat(kindOf(wire("p".repeat(SharedLoadMessage.MAX_POOL_BYTES + 1), 0, 1.0, 1)))
        .isEqualTo(Kind.INVALID);
    byte[] bad = wire("ab", 0, 1.0, 1);
    bad[16] = (byte) 0xC3; // a lone lead byte
    bad[17] = (byte) 0x28;
    assertThat(kindOf(bad)).isEqualTo(Kind.INVALID);
    assertThatThrownBy(
            () ->
                SharedLoadCodec.encode(
                    new Weights(1, List.of(new WeightEntry("p".repeat(300), 0, 1.0, 1)))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void countsAreBoundedAndMustMatchTheBytes() {
    byte[] none = {'I', 'L', 1, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
    assertThat(kindOf(none)).isEqualTo(Kind.INVALID);
    ByteBuffer lie = ByteBuffer.allocate(14);
    lie.put((byte) 'I')
        .put((byte) 'L')
        .put((byte) 1)
        .put((byte) 4)
        .putLong(1)
        .putShort((short) 200);
    assertThat(kindOf(lie.array())).isEqualTo(Kind.TRUNCATED);
    ByteBuffer many = ByteBuffer.allocate(14);
    many.put((byte) 'I').put((byte) 'L').put((byte) 1).put((byte) 4).putLong(1);
    many.putShort((short) (SharedLoadMessage.MAX_WEIGHT_ENTRIES + 1));
    assertThat(kindOf(many.array())).isEqualTo(Kind.INVALID);
  }

  @Test
  void atAndPastTheEntryLimit() throws Exception {
    List<WeightEntry> max = new ArrayList<>();
    for (int i = 0; i < SharedLoadMessage.MAX_WEIGHT_ENTRIES; i++) {
      max.add(new WeightEntry("pool-" + i, i % 3, 1.0 + i, i));
    }
    Weights w = new Weights(3, max);
    assertThat(SharedLoadCodec.decode(SharedLoadCodec.encode(w))).isEqualTo(w);
    List<WeightEntry> over = new ArrayList<>(max);
    over.add(new WeightEntry("one-more", 0, 1.0, 1));
    assertThatThrownBy(() -> new Weights(3, over)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void truncatedAndTrailingBytesAreTypedErrors() {
    byte[] ok = wire("workers", 0, 2.0, 5);
    for (int len = 4; len < ok.length; len++) {
      byte[] cut = java.util.Arrays.copyOf(ok, len);
      assertThat(kindOf(cut)).as("length %d", len).isIn(Kind.TRUNCATED, Kind.INVALID);
    }
    byte[] longer = java.util.Arrays.copyOf(ok, ok.length + 1);
    assertThat(kindOf(longer)).isEqualTo(Kind.TRAILING_BYTES);
  }
}
