package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.SharedLoadMessage.BindingEntry;
import io.infera.router.nats.SharedLoadMessage.Bindings;
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

/** Bindings messages: round trip, every prefix a typed error, any mutation valid or typed. */
class BindingsCodecProperties {

  private static final String[] WORKERS = {"w0", "prefill-é-1", "池-2", "x".repeat(1024)};

  static Bindings random(Random r) {
    int n = 1 + r.nextInt(6);
    List<BindingEntry> es = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int shape = r.nextInt(3); // 0 first only, 1 decode only, 2 both
      WorkerId first = shape == 1 ? null : WorkerId.of(WORKERS[r.nextInt(WORKERS.length)]);
      WorkerId decode = shape == 0 ? null : WorkerId.of(WORKERS[r.nextInt(WORKERS.length)]);
      es.add(
          new BindingEntry(
              r.nextLong(),
              first,
              first == null ? -1 : r.nextInt(65_537) - 1,
              decode,
              decode == null ? -1 : r.nextInt(65_537) - 1,
              1 + (r.nextLong() >>> 1) % SharedLoadMessage.MAX_BINDING_VERSION,
              r.nextLong()));
    }
    return new Bindings(r.nextLong(), es);
  }

  @Provide
  Arbitrary<Bindings> bindings() {
    return Arbitraries.randomValue(BindingsCodecProperties::random);
  }

  @Property(tries = 1000)
  void encodeThenDecodeIsIdentity(@ForAll("bindings") Bindings b) throws Exception {
    assertThat(SharedLoadCodec.decode(SharedLoadCodec.encode(b))).isEqualTo(b);
  }

  @Property(tries = 100)
  void everyStrictPrefixIsATypedError(@ForAll("bindings") Bindings b) {
    byte[] wire = SharedLoadCodec.encode(b);
    for (int len = 0; len < wire.length; len++) {
      byte[] prefix = Arrays.copyOf(wire, len);
      assertThatThrownBy(() -> SharedLoadCodec.decode(prefix))
          .isInstanceOf(SharedLoadCodec.MalformedException.class);
    }
  }

  @Property(tries = 3000)
  void anyMutationDecodesToAValidMessageOrIsATypedError(
      @ForAll("bindings") Bindings b,
      @ForAll @IntRange(min = 0, max = 100_000) int at,
      @ForAll byte value) {
    byte[] wire = SharedLoadCodec.encode(b);
    wire[at % wire.length] = value;
    try {
      SharedLoadMessage m = SharedLoadCodec.decode(wire);
      if (m instanceof Bindings back) {
        for (BindingEntry e : back.entries()) {
          assertThat(e.first() != null || e.decode() != null).isTrue();
          assertThat(e.version()).isBetween(1L, SharedLoadMessage.MAX_BINDING_VERSION);
          assertThat(e.firstRank()).isBetween(-1, SharedLoadMessage.MAX_BINDING_RANK);
          assertThat(e.decodeRank()).isBetween(-1, SharedLoadMessage.MAX_BINDING_RANK);
        }
        assertThat(SharedLoadCodec.encode(m)).isEqualTo(wire);
      }
    } catch (SharedLoadCodec.MalformedException e) {
      assertThat(e.kind()).isNotNull();
    }
  }

  @Property(tries = 3000)
  void randomBytesAfterAValidHeaderNeverEscapeAsAnythingButATypedError(@ForAll byte[] tail) {
    byte[] wire = new byte[12 + tail.length];
    wire[0] = 'I';
    wire[1] = 'L';
    wire[2] = 1;
    wire[3] = 5;
    System.arraycopy(tail, 0, wire, 12, tail.length);
    try {
      assertThat(SharedLoadCodec.decode(wire)).isInstanceOf(Bindings.class);
    } catch (SharedLoadCodec.MalformedException e) {
      assertThat(e.kind()).isNotNull();
    }
  }
}
