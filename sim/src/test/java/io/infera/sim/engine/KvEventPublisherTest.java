package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.KvEventMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The simulated replay socket frames its answers exactly as vLLM 0.33.0's and SGLang 0.5.23's
 * {@code _service_replay} do (docs/contracts.md, "Replay socket"), and survives bad requests.
 */
// Generous: a loaded CI machine (ci30) once spent the whole of an earlier 20 s limit in one test.
@Timeout(60)
class KvEventPublisherTest {

  private static final byte[] E = new byte[0];

  private final ZContext ctx = new ZContext(1);
  private final ZContext client = new ZContext(1);
  private List<KvEventPublisher> publishers = List.of();

  @AfterEach
  void close() {
    publishers.forEach(KvEventPublisher::close);
    client.close();
    ctx.close();
  }

  private KvEventPublisher start(String topic) throws PortInUseException {
    ctx.setLinger(0);
    client.setLinger(0);
    publishers = KvEventPublisher.start(ctx, "127.0.0.1", "127.0.0.1", false, 0, 0, 1, topic);
    return publishers.get(0);
  }

  private ZMQ.Socket dealer(String endpoint) {
    ZMQ.Socket d = client.createSocket(SocketType.DEALER);
    d.setLinger(0);
    d.setReceiveTimeOut(10_000);
    d.setHandshakeIvl(1000);
    d.connect(endpoint);
    return d;
  }

  /** One answer message, raw, as the DEALER reads it. */
  private static List<String> read(ZMQ.Socket d) {
    byte[] first = d.recv(0);
    assertThat(first).as("an answer within the timeout").isNotNull();
    List<String> frames = new ArrayList<>();
    frames.add(show(first));
    while (d.hasReceiveMore()) {
      frames.add(show(d.recv(0)));
    }
    return frames;
  }

  /** Eight-byte frames as their hex, the others as text. */
  private static String show(byte[] f) {
    if (f.length == 8) {
      StringBuilder b = new StringBuilder("0x");
      for (byte x : f) {
        b.append(String.format("%02x", x & 0xff));
      }
      return b.toString();
    }
    return new String(f, StandardCharsets.UTF_8);
  }

  private static void ask(ZMQ.Socket d, long start) {
    d.sendMore(E);
    d.send(KvEventMessage.seqBytes(start), 0);
  }

  private static void awaitPublished(KvEventPublisher p, long n) throws InterruptedException {
    for (int i = 0; i < 500 && p.published() < n; i++) {
      Thread.sleep(10);
    }
    assertThat(p.published()).isEqualTo(n);
  }

  @Test
  void answersEveryBufferedBatchWithTheTopicFrameThenTheEndMarkerWithout() throws Exception {
    KvEventPublisher p = start("kv-events");
    for (int i = 0; i < 3; i++) {
      p.publish(("p" + i).getBytes(StandardCharsets.UTF_8));
    }
    awaitPublished(p, 3);
    ZMQ.Socket d = dealer(p.replayEndpoint());
    ask(d, 1);
    assertThat(read(d)).containsExactly("", "kv-events", "0x0000000000000001", "p1");
    assertThat(read(d)).containsExactly("", "kv-events", "0x0000000000000002", "p2");
    // seq -1 as eight bytes, two's complement: (-1).to_bytes(8, "big", signed=True).
    assertThat(read(d)).containsExactly("", "", "0xffffffffffffffff", "");
    assertThat(p.replayRequests()).isEqualTo(1);
  }

  /**
   * A non-wildcard KV-event host: the PUB connects to the subscriber's bound socket (vLLM's rule,
   * what the relay's --zmq-mode bind expects); the replay ROUTER still binds on that host.
   */
  @Test
  void aConnectingPubReachesABoundSubAndTheReplayRouterStillBinds() throws Exception {
    ctx.setLinger(0);
    client.setLinger(0);
    ZMQ.Socket sub = client.createSocket(SocketType.SUB);
    sub.setLinger(0);
    sub.setReceiveTimeOut(200);
    sub.subscribe(ZMQ.SUBSCRIPTION_ALL);
    int port = sub.bindToRandomPort("tcp://127.0.0.1", 20_000, 60_000);
    publishers = KvEventPublisher.start(ctx, "127.0.0.1", "127.0.0.1", true, port, 0, 1, "t");
    KvEventPublisher p = publishers.get(0);
    assertThat(p.endpoint()).isEqualTo("tcp://127.0.0.1:" + port);
    // ZMQ's slow joiner: publish until one batch arrives, for at most 30 s of wall-clock time (the
    // connect is retried in the background, slowly on a loaded machine).
    byte[] topic = null;
    long deadline = System.nanoTime() + 30_000_000_000L;
    for (int i = 0; topic == null && System.nanoTime() < deadline; i++) {
      p.publish(("x" + i).getBytes(StandardCharsets.UTF_8));
      topic = sub.recv(0);
    }
    assertThat(topic)
        .as("a batch through the PUB connected to %s within 30 s", p.endpoint())
        .isNotNull();
    assertThat(new String(topic, StandardCharsets.UTF_8)).isEqualTo("t");
    ZMQ.Socket d = dealer(p.replayEndpoint());
    ask(d, 0);
    assertThat(read(d).get(1)).isEqualTo("t");
  }

  @Test
  void theDefaultEmptyTopicIsSentAsAnEmptyFrame() throws Exception {
    KvEventPublisher p = start("");
    p.publish("p0".getBytes(StandardCharsets.UTF_8));
    awaitPublished(p, 1);
    ZMQ.Socket d = dealer(p.replayEndpoint());
    ask(d, 0);
    assertThat(read(d)).containsExactly("", "", "0x0000000000000000", "p0");
    assertThat(read(d)).containsExactly("", "", "0xffffffffffffffff", "");
  }

  @Test
  void aRequestFromBeyondTheBufferGetsJustTheEndMarker() throws Exception {
    KvEventPublisher p = start("kv-events");
    p.publish("p0".getBytes(StandardCharsets.UTF_8));
    awaitPublished(p, 1);
    ZMQ.Socket d = dealer(p.replayEndpoint());
    ask(d, 5);
    assertThat(read(d)).containsExactly("", "", "0xffffffffffffffff", "");
  }

  @Test
  void aMalformedRequestIsIgnoredAndTheNextOneAnswered() throws Exception {
    KvEventPublisher p = start("kv-events");
    p.publish("p0".getBytes(StandardCharsets.UTF_8));
    awaitPublished(p, 1);
    ZMQ.Socket d = dealer(p.replayEndpoint());
    d.sendMore(E);
    d.sendMore(KvEventMessage.seqBytes(0));
    d.send("extra", 0);
    d.sendMore(E);
    d.send(new byte[] {0, 1}, 0);
    ask(d, 0);
    assertThat(read(d)).containsExactly("", "kv-events", "0x0000000000000000", "p0");
    assertThat(read(d)).last().isEqualTo("");
    assertThat(p.replayRequests()).isEqualTo(1);
  }
}
