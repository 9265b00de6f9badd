package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Property tests: encoded messages decode to themselves; every truncation is a typed error. */
class SharedLoadCodecProperties {

  @Provide
  Arbitrary<SharedLoadMessage> messages() {
    return Arbitraries.randomValue(SharedLoadMessages::random);
  }

  @Property(tries = 2000)
  void encodeThenDecodeIsIdentity(@ForAll("messages") SharedLoadMessage m) throws Exception {
    byte[] wire = SharedLoadCodec.encode(m);
    assertThat(SharedLoadCodec.decode(wire)).isEqualTo(m);
    assertThat(SharedLoadCodec.encode(SharedLoadCodec.decode(wire))).isEqualTo(wire);
  }

  @Property(tries = 300)
  void everyStrictPrefixIsATypedError(@ForAll("messages") SharedLoadMessage m) {
    byte[] wire = SharedLoadCodec.encode(m);
    for (int len = 0; len < wire.length; len++) {
      byte[] prefix = Arrays.copyOf(wire, len);
      assertThatThrownBy(() -> SharedLoadCodec.decode(prefix))
          .isInstanceOf(SharedLoadCodec.MalformedException.class);
    }
  }

  @Property(tries = 1000)
  void anyByteStringDecodesOrIsATypedError(@ForAll byte[] bytes) {
    try {
      SharedLoadMessage m = SharedLoadCodec.decode(bytes);
      // What decodes is canonical: it encodes back to the same bytes.
      assertThat(SharedLoadCodec.encode(m)).isEqualTo(bytes);
    } catch (SharedLoadCodec.MalformedException e) {
      assertThat(e.kind()).isNotNull();
    }
  }
}
