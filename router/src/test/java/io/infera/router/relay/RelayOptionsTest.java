package io.infera.router.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.NatsAuth;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RelayOptionsTest {

  private static RelayOptions.Builder valid() {
    return RelayOptions.builder("tcp://127.0.0.1:5557", "nats://nats:4222", WorkerId.of("pod-0"));
  }

  @Test
  void defaultsFollowTheDesign() {
    RelayOptions o = valid().build();
    assertThat(o.engine()).isEqualTo("vllm");
    assertThat(o.blockSize()).isEqualTo(16);
    assertThat(o.dpSize()).isEqualTo(1);
    assertThat(o.subjectPrefix()).isEqualTo(EventSubjects.DEFAULT_PREFIX);
    assertThat(o.stream()).isEqualTo(EventSubjects.DEFAULT_STREAM);
    assertThat(o.snapshotBucket()).isEqualTo(EventSubjects.DEFAULT_BUCKET);
    assertThat(o.snapshotEveryEvents()).isEqualTo(1000);
    assertThat(o.snapshotEvery()).isEqualTo(Duration.ofSeconds(5));
    assertThat(o.bufferBatches()).isEqualTo(10_000);
    assertThat(o.bufferBytes()).isEqualTo(64L << 20);
    assertThat(valid().bufferBytes(1L << 40).build().bufferBytes()).isEqualTo(1L << 40);
    assertThat(valid().bufferBytes(1).build().bufferBytes()).isEqualTo(1);
    assertThat(o.replayEndpoint()).isNull();
    assertThat(o.subject(1))
        .isEqualTo("infera.kv.events.static." + EventSubjects.token(o.workerId()) + ".1");
    assertThat(o.snapshotKey(0)).isEqualTo("static." + EventSubjects.token(o.workerId()) + ".0");
    assertThat(o.pool()).isEqualTo("static");
    assertThat(o.auth()).isEqualTo(NatsAuth.NONE);
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        bad("zmq", b -> b.zmqEndpoint(" ")),
        bad("zmq", b -> b.zmqEndpoint("http://x:1")),
        bad("zmq", b -> b.zmqEndpoint("ipc:///tmp/kv").dpSize(2)),
        bad("replay", b -> b.replayEndpoint("localhost:5558")),
        bad("nats", b -> b.natsUrl("")),
        bad("nats", b -> b.natsUrl("http://nats:4222")),
        bad("nats", b -> b.natsUrl("nats://a:4222, ::bad")),
        bad("worker-id", b -> b.workerId(null)),
        bad("engine", b -> b.engine("trtllm")),
        bad("block-size", b -> b.blockSize(0)),
        bad("dp-size", b -> b.dpSize(0)),
        bad("pool", b -> b.pool("")),
        bad("pool", b -> b.pool("a.b")),
        bad("pool", b -> b.pool("a>")),
        bad("pool", b -> b.pool("x".repeat(64))),
        bad("subject-prefix", b -> b.subjectPrefix("infera.kv.*")),
        bad("subject-prefix", b -> b.subjectPrefix("infera..kv")),
        bad("subject-prefix", b -> b.subjectPrefix("a b")),
        bad("stream", b -> b.stream("KV.EVENTS")),
        bad("snapshot-bucket", b -> b.snapshotBucket("a/b")),
        bad("snapshot-every-events", b -> b.snapshotEveryEvents(0)),
        bad("snapshot-every", b -> b.snapshotEvery(Duration.ZERO)),
        bad("buffer", b -> b.bufferBatches(0)),
        bad("buffer-bytes", b -> b.bufferBytes(0)),
        bad("buffer-bytes", b -> b.bufferBytes(-1)),
        bad("buffer-bytes", b -> b.bufferBytes((1L << 40) + 1)),
        bad("publish-window", b -> b.publishWindow(0)),
        bad("reconnect-wait-max", b -> b.reconnectWaitMax(Duration.ofMillis(1))));
  }

  private static Arguments bad(String key, UnaryOperator<RelayOptions.Builder> change) {
    return Arguments.of(key, change);
  }

  @ParameterizedTest(name = "--{0}")
  @MethodSource("invalid")
  void invalidValuesNameTheirOption(String key, UnaryOperator<RelayOptions.Builder> change) {
    assertThatThrownBy(() -> change.apply(valid()).build())
        .isInstanceOf(RelayOptions.InvalidOption.class)
        .hasMessageStartingWith("--" + key + " ")
        .satisfies(e -> assertThat(((RelayOptions.InvalidOption) e).key()).isEqualTo(key));
  }

  @Test
  void dataParallelEndpointsMustBeOffsettable() {
    RelayOptions o = valid().dpSize(4).replayEndpoint("tcp://127.0.0.1:5558").build();
    assertThat(o.dpSize()).isEqualTo(4);
    assertThat(valid().zmqEndpoint("inproc://kv").dpSize(2).build().zmqEndpoint())
        .isEqualTo("inproc://kv");
  }
}
