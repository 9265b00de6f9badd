package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Property tests: what is encoded decodes to itself; no input escapes as anything but typed. */
class KvEventDecoderProperties {

  @Provide
  Arbitrary<EventModel.Sample> samples() {
    return Arbitraries.randomValue(EventModel::random);
  }

  @Property(tries = 2000)
  void encodeThenDecodeIsIdentity(@ForAll("samples") EventModel.Sample s) throws Exception {
    EventBatch decoded = KvEventDecoder.decode(s.payload());
    assertThat(decoded.events()).isEqualTo(s.batch().events());
    assertThat(decoded.rank()).isEqualTo(s.batch().rank());
    assertThat(decoded.ts()).isEqualTo(s.batch().ts());
    assertThat(decoded.unknownEvents()).isZero();
  }

  @Property(tries = 1000)
  void oneBadEventDropsOnlyItself(
      @ForAll("samples") EventModel.Sample s,
      @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 4) int poison,
      @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 3) int placeholders,
      @ForAll long seed)
      throws Exception {
    byte[] payload = EventModel.encode(s.batch(), new Random(seed), poison, placeholders);
    EventBatch decoded = KvEventDecoder.decode(payload);
    assertThat(decoded.events()).isEqualTo(s.batch().events());
    assertThat(decoded.rank()).isEqualTo(s.batch().rank());
    assertThat(decoded.skipped().malformed()).isEqualTo(poison);
    assertThat(decoded.skipped().offloadPlaceholder()).isEqualTo(placeholders);
    assertThat(decoded.skipped().unknownType()).isZero();
    assertThat(decoded.skipped().firstError() != null).isEqualTo(poison > 0);
  }

  @Property(tries = 300)
  void everyStrictPrefixOfAValidPayloadIsATypedError(@ForAll("samples") EventModel.Sample s) {
    byte[] p = s.payload();
    for (int len = 0; len < p.length; len++) {
      byte[] prefix = Arrays.copyOf(p, len);
      assertThatThrownBy(() -> KvEventDecoder.decode(prefix))
          .isInstanceOf(EventDecodeException.class);
    }
  }

  @Property(tries = 5000)
  void arbitraryBytesNeverEscapeAsUncheckedExceptions(@ForAll byte[] bytes) {
    try {
      KvEventDecoder.decode(bytes);
    } catch (EventDecodeException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
  }

  @Property(tries = 200)
  void decodingIsDeterministic(@ForAll("samples") EventModel.Sample s) throws Exception {
    Random r = new Random(s.payload().length);
    byte[] again = EventModel.encode(s.batch(), r);
    assertThat(KvEventDecoder.decode(again).events())
        .isEqualTo(KvEventDecoder.decode(s.payload()).events());
  }
}
