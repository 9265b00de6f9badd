package io.infera.router.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.events.zmq.ReplayAnswer.Batch;
import io.infera.router.events.zmq.ReplayAnswer.Malformed;
import io.infera.router.events.zmq.ReplayAnswer.Problem;
import io.infera.router.kv.KvEventMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every replay-answer layout engines send, and every shape they do not (docs/contracts.md). */
class ReplayAnswerTest {

  private static final byte[] E = new byte[0];
  private static final byte[] TOPIC = "kv-events".getBytes(StandardCharsets.UTF_8);
  private static final byte[] PAYLOAD = {(byte) 0x93, 1, 2, 3};

  /** The layouts a DEALER (or a REQ socket) can see; {@code frames} builds one answer. */
  enum Layout {
    /** vLLM 0.26+ and SGLang 0.5.23 through a DEALER: {@code ["", topic, seq, payload]}. */
    TOPIC {
      @Override
      List<byte[]> frames(byte[] topic, byte[] seq, byte[] payload) {
        return List.of(E, topic, seq, payload);
      }
    },
    /** Older engines through a DEALER: {@code ["", seq, payload]}. */
    DELIMITED {
      @Override
      List<byte[]> frames(byte[] topic, byte[] seq, byte[] payload) {
        return List.of(E, seq, payload);
      }
    },
    /** The current layout through a REQ socket: {@code [topic, seq, payload]}. */
    TOPIC_NO_DELIMITER {
      @Override
      List<byte[]> frames(byte[] topic, byte[] seq, byte[] payload) {
        return List.of(topic, seq, payload);
      }
    },
    /** The older layout through a REQ socket: {@code [seq, payload]}. */
    BARE {
      @Override
      List<byte[]> frames(byte[] topic, byte[] seq, byte[] payload) {
        return List.of(seq, payload);
      }
    };

    abstract List<byte[]> frames(byte[] topic, byte[] seq, byte[] payload);

    /** The topic the parser can know from this layout ({@code null}: none). */
    byte[] knownTopic(byte[] topic) {
      return switch (this) {
        case TOPIC -> topic;
        case TOPIC_NO_DELIMITER -> topic.length == 0 ? null : topic;
        case DELIMITED, BARE -> null;
      };
    }
  }

  private static byte[] seq(long s) {
    return KvEventMessage.seqBytes(s);
  }

  @ParameterizedTest
  @EnumSource(Layout.class)
  void everyLayoutGivesTheBatch(Layout layout) {
    ReplayAnswer a = ReplayAnswer.parse(layout.frames(TOPIC, seq(42), PAYLOAD));
    assertThat(a).isInstanceOf(Batch.class);
    Batch b = (Batch) a;
    assertThat(b.seq()).isEqualTo(42);
    assertThat(b.payload()).isEqualTo(PAYLOAD);
    assertThat(b.seqFrame()).isEqualTo(seq(42));
    assertThat(b.topic()).isEqualTo(layout.knownTopic(TOPIC));
  }

  @ParameterizedTest
  @EnumSource(Layout.class)
  void everyLayoutEndsWithSeqMinusOneAndAnEmptyPayload(Layout layout) {
    // Engines send an empty topic in the end marker; a non-empty one is accepted as well.
    assertThat(ReplayAnswer.parse(layout.frames(E, seq(-1), E))).isSameAs(ReplayAnswer.END);
    assertThat(ReplayAnswer.parse(layout.frames(TOPIC, seq(-1), E))).isSameAs(ReplayAnswer.END);
  }

  @Test
  void theEmptyTopicOfTheDefaultConfigurationIsKept() {
    Batch b = (Batch) ReplayAnswer.parse(Layout.TOPIC.frames(E, seq(0), PAYLOAD));
    assertThat(b.topic()).isEmpty();
    assertThat(b.seq()).isZero();
  }

  @Test
  void anEmptyPayloadIsABatchUnlessTheSeqIsMinusOne() {
    assertThat(ReplayAnswer.parse(Layout.TOPIC.frames(TOPIC, seq(7), E))).isInstanceOf(Batch.class);
  }

  @Test
  void wrongFrameCountsAreMalformed() {
    assertThat(ReplayAnswer.parse(List.of())).isEqualTo(new Malformed(Problem.FRAME_COUNT, 0));
    assertThat(ReplayAnswer.parse(List.of(seq(1))))
        .isEqualTo(new Malformed(Problem.FRAME_COUNT, 1));
    assertThat(ReplayAnswer.parse(List.of(E, E, TOPIC, seq(1), PAYLOAD)))
        .isEqualTo(new Malformed(Problem.FRAME_COUNT, 5));
  }

  @Test
  void fourFramesWithoutTheEmptyDelimiterAreMalformed() {
    assertThat(ReplayAnswer.parse(List.of(TOPIC, TOPIC, seq(1), PAYLOAD)))
        .isEqualTo(new Malformed(Problem.NO_DELIMITER, 4));
  }

  @Test
  void aSeqFrameOfAnotherSizeIsMalformed() {
    assertThat(ReplayAnswer.parse(List.of(E, TOPIC, new byte[4], PAYLOAD)))
        .isEqualTo(new Malformed(Problem.SEQ_SIZE, 4));
    assertThat(ReplayAnswer.parse(List.of(E, new byte[9], PAYLOAD)))
        .isEqualTo(new Malformed(Problem.SEQ_SIZE, 3));
    // The old reader's misreading of the current layout: "topic" where the seq should be.
    assertThat(ReplayAnswer.parse(List.of(E, E))).isEqualTo(new Malformed(Problem.SEQ_SIZE, 2));
  }

  @Test
  void negativeSequencesOtherThanTheEndMarkerAreMalformed() {
    assertThat(ReplayAnswer.parse(Layout.TOPIC.frames(E, seq(-1), PAYLOAD)))
        .isEqualTo(new Malformed(Problem.NEGATIVE_SEQ, 4));
    assertThat(ReplayAnswer.parse(Layout.DELIMITED.frames(E, seq(-2), E)))
        .isEqualTo(new Malformed(Problem.NEGATIVE_SEQ, 3));
    assertThat(ReplayAnswer.parse(Layout.BARE.frames(E, seq(Long.MIN_VALUE), PAYLOAD)))
        .isEqualTo(new Malformed(Problem.NEGATIVE_SEQ, 2));
  }

  // ---------------------------------------------------------------- properties

  @Property(tries = 500)
  void anyBatchRoundTripsInEveryLayout(
      @ForAll @Size(max = 40) byte[] topic,
      @ForAll @LongRange(min = 0) long seq,
      @ForAll @Size(max = 200) byte[] payload,
      @ForAll Layout layout) {
    ReplayAnswer a = ReplayAnswer.parse(layout.frames(topic, seq(seq), payload));
    assertThat(a).isInstanceOf(Batch.class);
    Batch b = (Batch) a;
    assertThat(b.seq()).isEqualTo(seq);
    assertThat(b.payload()).isEqualTo(payload);
    assertThat(b.topic()).isEqualTo(layout.knownTopic(topic));
  }

  /** Arbitrary frames, biased towards the sizes that matter: empty, 8 bytes, short. */
  @Provide
  Arbitrary<List<byte[]>> frameLists() {
    Arbitrary<byte[]> frame =
        Arbitraries.oneOf(
            Arbitraries.just(E),
            Arbitraries.longs().map(KvEventMessage::seqBytes),
            Arbitraries.just(seq(-1)),
            Arbitraries.bytes().array(byte[].class).ofMaxSize(12));
    return frame.list().ofMaxSize(ReplayAnswer.MAX_FRAMES + 2);
  }

  @Property(tries = 2000)
  void anyFramesParseWithoutThrowingAndABatchIsConsistent(
      @ForAll("frameLists") List<byte[]> frames) {
    ReplayAnswer a = ReplayAnswer.parse(frames);
    if (a instanceof Batch b) {
      assertThat(frames.size()).isBetween(2, 4);
      assertThat(b.seq()).isNotNegative();
      assertThat(b.seqFrame()).hasSize(8);
      assertThat(ReplayClient.seqOf(b.seqFrame())).isEqualTo(b.seq());
      assertThat(b.payload()).isSameAs(frames.get(frames.size() - 1));
    } else if (a instanceof Malformed m) {
      assertThat(m.frames()).isEqualTo(frames.size());
    } else {
      assertThat(a).isSameAs(ReplayAnswer.END);
      assertThat(frames.get(frames.size() - 1)).isEmpty();
      assertThat(ReplayClient.seqOf(frames.get(frames.size() - 2))).isEqualTo(-1);
    }
  }

  @Property(tries = 300)
  void frameCountsOutsideTwoToFourAreAlwaysMalformed(@ForAll @IntRange(min = 0, max = 30) int n) {
    List<byte[]> frames = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      frames.add(i == 0 && n > 2 ? E : seq(i + 1));
    }
    ReplayAnswer a = ReplayAnswer.parse(frames);
    if (n < 2 || n > 4) {
      assertThat(a).isEqualTo(new Malformed(Problem.FRAME_COUNT, n));
    } else {
      assertThat(a).isNotInstanceOf(Malformed.class);
    }
  }
}
