package io.infera.router.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.KvEventMessage;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/** The replay client against an in-process ROUTER that answers like vLLM's replay socket. */
class ReplayClientTest {

  private static final byte[] EMPTY = new byte[0];
  private final ZContext ctx = new ZContext(1);
  private final List<String> got = new ArrayList<>();
  private final AtomicInteger malformed = new AtomicInteger();
  private final ReplayClient.Answers answers =
      new ReplayClient.Answers() {
        @Override
        public void batch(long seq, byte[] seqFrame, byte[] payload) {
          assertThat(ReplayClient.seqOf(seqFrame)).isEqualTo(seq);
          got.add(seq + ":" + new String(payload));
        }

        @Override
        public void malformed(int frames) {
          malformed.incrementAndGet();
        }
      };

  @AfterEach
  void close() {
    ctx.close();
  }

  private ReplayClient client(Duration timeout) {
    return new ReplayClient(
        timeout, Duration.ofMillis(10), Duration.ofSeconds(1), Duration.ofMillis(20), () -> true);
  }

  /**
   * A ROUTER on {@code endpoint} that answers one request from its start seq with batches up to
   * {@code last}, plus an unparsable answer first, then (unless {@code silent}) the end marker.
   */
  private Thread router(String endpoint, long last, boolean silent, AtomicLong asked) {
    ZMQ.Socket router = ctx.createSocket(SocketType.ROUTER);
    router.bind(endpoint);
    Thread t =
        new Thread(
            () -> {
              byte[] id = router.recv(0);
              router.recv(0); // the empty delimiter
              long start = ByteBuffer.wrap(router.recv(0)).getLong();
              asked.set(start);
              router.sendMore(id);
              router.sendMore(EMPTY);
              router.send("garbage");
              for (long s = start; s <= last; s++) {
                router.sendMore(id);
                router.sendMore(EMPTY);
                router.sendMore(KvEventMessage.seqBytes(s));
                router.send(("b" + s).getBytes());
              }
              if (!silent) {
                router.sendMore(id);
                router.sendMore(EMPTY);
                router.sendMore(KvEventMessage.seqBytes(-1));
                router.send(EMPTY);
              }
            });
    t.start();
    return t;
  }

  @Test
  void readsEveryAnswerFromTheStartUntilTheEndMarker() throws Exception {
    AtomicLong asked = new AtomicLong(-2);
    Thread r = router("inproc://replay-complete", 5, false, asked);
    boolean complete =
        client(Duration.ofSeconds(5)).request(ctx, "inproc://replay-complete", 3, answers);
    r.join();
    assertThat(complete).isTrue();
    assertThat(asked.get()).isEqualTo(3);
    assertThat(got).containsExactly("3:b3", "4:b4", "5:b5");
    assertThat(malformed.get()).isEqualTo(1);
  }

  @Test
  void withoutAnEndMarkerTheRequestTimesOutKeepingWhatCame() throws Exception {
    AtomicLong asked = new AtomicLong(-2);
    Thread r = router("inproc://replay-silent", 1, true, asked);
    long t0 = System.nanoTime();
    boolean complete =
        client(Duration.ofMillis(300)).request(ctx, "inproc://replay-silent", 0, answers);
    r.join();
    assertThat(complete).isFalse();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    assertThat(got).containsExactly("0:b0", "1:b1");
  }

  @Test
  void aStoppedTransportEndsTheRequestAtOnce() {
    ReplayClient stopped =
        new ReplayClient(
            Duration.ofSeconds(30),
            Duration.ofMillis(10),
            Duration.ofSeconds(1),
            Duration.ofMillis(20),
            () -> false);
    assertThat(stopped.request(ctx, "inproc://nobody", 0, answers)).isFalse();
    assertThat(got).isEmpty();
  }
}
