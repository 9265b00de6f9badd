package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.nats.SharedLoadMessage.WeightEntry;
import io.infera.router.nats.SharedLoadMessage.Weights;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Weight messages: round trip, every prefix a typed error, any mutation decodes or is typed. */
class WeightsCodecProperties {

  private static final String[] POOLS = {"workers", "p", "prefill-é", "池-2", "x".repeat(253)};

  static Weights random(Random r) {
    int n = 1 + r.nextInt(8);
    List<WeightEntry> es = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double w = r.nextInt(4) == 0 ? Math.pow(2, r.nextInt(20) - 5) : 1e-9 + r.nextDouble() * 1e6;
      es.add(
          new WeightEntry(
              POOLS[r.nextInt(POOLS.length)], r.nextInt(3), Math.min(w, 1e6), r.nextLong() >>> 1));
    }
    return new Weights(r.nextLong(), es);
  }

  @Provide
  Arbitrary<Weights> weights() {
    return Arbitraries.randomValue(WeightsCodecProperties::random);
  }

  @Property(tries = 1000)
  void encodeThenDecodeIsIdentity(@ForAll("weights") Weights w) throws Exception {
    byte[] wire = SharedLoadCodec.encode(w);
    assertThat(SharedLoadCodec.decode(wire)).isEqualTo(w);
  }

  @Property(tries = 200)
  void everyStrictPrefixIsATypedError(@ForAll("weights") Weights w) {
    byte[] wire = SharedLoadCodec.encode(w);
    for (int len = 0; len < wire.length; len++) {
      byte[] prefix = Arrays.copyOf(wire, len);
      assertThatThrownBy(() -> SharedLoadCodec.decode(prefix))
          .isInstanceOf(SharedLoadCodec.MalformedException.class);
    }
  }

  @Property(tries = 2000)
  void anyMutationDecodesToAValidMessageOrIsATypedError(
      @ForAll("weights") Weights w,
      @ForAll @IntRange(min = 0, max = 10_000) int at,
      @ForAll byte value) {
    byte[] wire = SharedLoadCodec.encode(w);
    wire[at % wire.length] = value;
    try {
      SharedLoadMessage m = SharedLoadCodec.decode(wire);
      if (m instanceof Weights back) {
        for (WeightEntry e : back.estimates()) {
          assertThat(e.weight()).isGreaterThan(0).isLessThanOrEqualTo(SharedLoadMessage.MAX_WEIGHT);
          assertThat(e.role()).isBetween(0, 2);
          assertThat(e.samples()).isNotNegative();
        }
        assertThat(SharedLoadCodec.encode(m)).isEqualTo(wire);
      }
    } catch (SharedLoadCodec.MalformedException e) {
      assertThat(e.kind()).isNotNull();
    }
  }
}
