package io.infera.router.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.events.zmq.ReplayAnswer.Malformed;
import io.infera.router.events.zmq.ReplayAnswer.Problem;
import io.infera.router.events.zmq.ReplayAnswerTest.Layout;
import io.infera.router.events.zmq.ReplayClient.Outcome;
import io.infera.router.kv.KvEventMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The replay client against an in-process ROUTER that answers like an engine's replay socket, in
 * every layout, and like a broken or hostile one: a malformed answer ends the request at once.
 */
@Timeout(20)
class ReplayClientTest {

  private static final byte[] EMPTY = new byte[0];
  private static final byte[] TOPIC = "kv-events".getBytes(StandardCharsets.UTF_8);
  private static final Duration LONG = Duration.ofSeconds(5);

  private final ZContext ctx = new ZContext(1);
  private final List<String> got = new CopyOnWriteArrayList<>();
  private final List<String> topics = new CopyOnWriteArrayList<>();
  private final List<Malformed> malformed = new CopyOnWriteArrayList<>();
  private final AtomicBoolean serving = new AtomicBoolean(true);
  private final List<Thread> routers = new ArrayList<>();

  /**
   * Stops the ROUTER threads, then the context. A ZMQ socket belongs to one thread: closing the
   * context while a ROUTER thread still sends destroys its socket under it, which crashed jeromq's
   * reaper and left {@code ctx.close()} waiting forever (a CI run hung here). So the context is
   * closed only once every thread has closed its own socket; a thread that does not stop fails the
   * test instead.
   */
  @AfterEach
  void close() throws InterruptedException {
    serving.set(false);
    List<Thread> alive = new ArrayList<>();
    for (Thread t : routers) {
      t.join(10_000);
      if (t.isAlive()) {
        alive.add(t);
      }
    }
    assertThat(alive).as("replay ROUTER threads still running after 10 s").isEmpty();
    ctx.close();
  }

  private ReplayClient.Answers answers(LongPredicate more) {
    return new ReplayClient.Answers() {
      @Override
      public boolean batch(byte[] topic, long seq, byte[] seqFrame, byte[] payload) {
        assertThat(ReplayClient.seqOf(seqFrame)).isEqualTo(seq);
        got.add(seq + ":" + new String(payload, StandardCharsets.UTF_8));
        topics.add(topic == null ? "<none>" : new String(topic, StandardCharsets.UTF_8));
        return more.test(seq);
      }

      @Override
      public void malformed(Malformed m) {
        malformed.add(m);
      }
    };
  }

  private ReplayClient.Answers answers() {
    return answers(seq -> true);
  }

  private ReplayClient client(Duration timeout) {
    return client(timeout, ReplayClient.DEFAULT_MAX_FRAME_BYTES);
  }

  private ReplayClient client(Duration timeout, long maxFrameBytes) {
    return new ReplayClient(
        timeout,
        Duration.ofMillis(10),
        Duration.ofSeconds(1),
        Duration.ofMillis(20),
        () -> true,
        maxFrameBytes);
  }

  private static byte[] seq(long s) {
    return KvEventMessage.seqBytes(s);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Batches {@code start..last} in {@code layout}, as an engine buffers {@code "b<seq>"}. */
  private static List<List<byte[]>> batches(Layout layout, long start, long last) {
    List<List<byte[]>> out = new ArrayList<>();
    for (long s = start; s <= last; s++) {
      out.add(layout.frames(TOPIC, seq(s), bytes("b" + s)));
    }
    return out;
  }

  private static List<byte[]> end(Layout layout) {
    return layout.frames(EMPTY, seq(-1), EMPTY);
  }

  private static List<List<byte[]>> with(List<List<byte[]>> a, List<byte[]>... more) {
    List<List<byte[]>> out = new ArrayList<>(a);
    out.addAll(List.of(more));
    return out;
  }

  /**
   * A ROUTER bound to {@code endpoint} (a tcp one at a free loopback port when it ends in ":*")
   * that answers each request with {@code script(start)}, each message behind the identity.
   *
   * @return the bound endpoint
   */
  private String router(
      String endpoint, AtomicLong asked, LongFunction<Iterable<List<byte[]>>> script) {
    ZMQ.Socket router = ctx.createSocket(SocketType.ROUTER);
    router.setLinger(0);
    router.setSndHWM(100_000);
    String bound = endpoint;
    if (endpoint.endsWith(":*")) {
      bound = "tcp://127.0.0.1:" + router.bindToRandomPort("tcp://127.0.0.1");
    } else {
      router.bind(endpoint);
    }
    Thread t =
        new Thread(
            () -> {
              router.setReceiveTimeOut(50);
              while (serving.get()) {
                byte[] id = router.recv(0);
                if (id == null) {
                  continue;
                }
                router.recv(0); // the empty delimiter
                long start = ByteBuffer.wrap(router.recv(0)).getLong();
                asked.set(start);
                for (List<byte[]> m : script.apply(start)) {
                  if (!serving.get()) {
                    break;
                  }
                  send(router, id, m);
                }
              }
              router.close();
            });
    t.setDaemon(true);
    t.start();
    routers.add(t);
    return bound;
  }

  private static void send(ZMQ.Socket router, byte[] id, List<byte[]> frames) {
    router.sendMore(id);
    for (int i = 0; i < frames.size(); i++) {
      if (i < frames.size() - 1) {
        router.sendMore(frames.get(i));
      } else {
        router.send(frames.get(i));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Layout.class)
  void readsEveryAnswerFromTheStartUntilTheEndMarkerInEveryLayout(Layout layout) {
    AtomicLong asked = new AtomicLong(-2);
    String at =
        router("inproc://replay-" + layout, asked, s -> with(batches(layout, s, 5), end(layout)));
    Outcome o = client(LONG).request(ctx, at, 3, answers());
    assertThat(o).isEqualTo(Outcome.COMPLETE);
    assertThat(asked.get()).isEqualTo(3);
    assertThat(got).containsExactly("3:b3", "4:b4", "5:b5");
    String topic = new String(TOPIC, StandardCharsets.UTF_8);
    assertThat(topics)
        .containsOnly(
            layout == Layout.TOPIC || layout == Layout.TOPIC_NO_DELIMITER ? topic : "<none>");
    assertThat(malformed).isEmpty();
  }

  @Test
  void anEmptyBufferAnswersJustTheEndMarker() {
    String at = router("inproc://replay-empty", new AtomicLong(), s -> List.of(end(Layout.TOPIC)));
    assertThat(client(LONG).request(ctx, at, 0, answers())).isEqualTo(Outcome.COMPLETE);
    assertThat(got).isEmpty();
  }

  @Test
  void theCallerEndsTheRequestOnceItHasWhatItWants() {
    String at =
        router(
            "inproc://replay-enough",
            new AtomicLong(),
            s -> with(batches(Layout.TOPIC, s, 50), end(Layout.TOPIC)));
    Outcome o = client(LONG).request(ctx, at, 0, answers(seq -> seq < 3));
    assertThat(o).isEqualTo(Outcome.COMPLETE);
    assertThat(got).containsExactly("0:b0", "1:b1", "2:b2", "3:b3");
  }

  @Test
  void withoutAnEndMarkerTheRequestTimesOutKeepingWhatCame() {
    String at =
        router("inproc://replay-silent", new AtomicLong(), s -> batches(Layout.TOPIC, s, 1));
    long t0 = System.nanoTime();
    Outcome o = client(Duration.ofMillis(300)).request(ctx, at, 0, answers());
    assertThat(o).isEqualTo(Outcome.TIMED_OUT);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    assertThat(got).containsExactly("0:b0", "1:b1");
  }

  /**
   * Hostile answers, each after one good batch: the request ends there, long before its timeout.
   */
  @ParameterizedTest
  @EnumSource(Hostile.class)
  void aMalformedAnswerEndsTheRequestAtOnceAndNothingAfterItIsDelivered(Hostile h) {
    String at =
        router(
            "inproc://replay-hostile-" + h,
            new AtomicLong(),
            s ->
                with(
                    batches(Layout.TOPIC, 0, 0),
                    h.frames,
                    Layout.TOPIC.frames(TOPIC, seq(1), bytes("b1")),
                    end(Layout.TOPIC)));
    long t0 = System.nanoTime();
    Outcome o = client(LONG).request(ctx, at, 0, answers());
    assertThat(o).isEqualTo(Outcome.MALFORMED);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
    assertThat(got).containsExactly("0:b0");
    assertThat(malformed).containsExactly(new Malformed(h.problem, h.frames.size()));
  }

  /** Messages no engine sends. */
  enum Hostile {
    ONE_FRAME(Problem.FRAME_COUNT, List.of(bytes("garbage"))),
    FIVE_FRAMES(Problem.FRAME_COUNT, List.of(EMPTY, EMPTY, TOPIC, seq(1), bytes("b1"))),
    HUNDREDS_OF_FRAMES(Problem.FRAME_COUNT, manyFrames(300)),
    NO_DELIMITER(Problem.NO_DELIMITER, List.of(TOPIC, TOPIC, seq(1), bytes("b1"))),
    SHORT_SEQ(Problem.SEQ_SIZE, List.of(EMPTY, TOPIC, new byte[] {0, 0, 0, 1}, bytes("b1"))),
    LONG_SEQ(Problem.SEQ_SIZE, List.of(EMPTY, new byte[16], bytes("b1"))),
    NEGATIVE_SEQ(Problem.NEGATIVE_SEQ, List.of(EMPTY, TOPIC, seq(-7), bytes("b1"))),
    END_WITH_PAYLOAD(Problem.NEGATIVE_SEQ, List.of(EMPTY, EMPTY, seq(-1), bytes("x"))),
    REPEATED_SEQ(Problem.OUT_OF_ORDER, List.of(EMPTY, TOPIC, seq(0), bytes("again")));

    final Problem problem;
    final List<byte[]> frames;

    Hostile(Problem problem, List<byte[]> frames) {
      this.problem = problem;
      this.frames = frames;
    }

    private static List<byte[]> manyFrames(int n) {
      List<byte[]> out = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        out.add(seq(i));
      }
      return out;
    }
  }

  @Test
  void aSequenceGoingDownInsideOneAnswerIsMalformed() {
    // The sequence going down inside one answer is caught as well.
    String at =
        router(
            "inproc://replay-down",
            new AtomicLong(),
            s ->
                List.of(
                    Layout.TOPIC.frames(TOPIC, seq(5), bytes("b5")),
                    Layout.TOPIC.frames(TOPIC, seq(4), bytes("b4")),
                    end(Layout.TOPIC)));
    assertThat(client(LONG).request(ctx, at, 0, answers())).isEqualTo(Outcome.MALFORMED);
    assertThat(got).containsExactly("5:b5");
    assertThat(malformed).extracting(Malformed::problem).containsExactly(Problem.OUT_OF_ORDER);
  }

  @Test
  void garbageAfterTheEndMarkerIsNeverRead() {
    String at =
        router(
            "inproc://replay-after-end",
            new AtomicLong(),
            s ->
                with(
                    batches(Layout.TOPIC, s, 2),
                    end(Layout.TOPIC),
                    List.of(bytes("garbage")),
                    Layout.TOPIC.frames(TOPIC, seq(3), bytes("b3"))));
    assertThat(client(LONG).request(ctx, at, 0, answers())).isEqualTo(Outcome.COMPLETE);
    assertThat(got).containsExactly("0:b0", "1:b1", "2:b2");
    assertThat(malformed).isEmpty();
    // A fresh request does not see the previous one's leftovers either.
    got.clear();
    assertThat(client(LONG).request(ctx, at, 1, answers())).isEqualTo(Outcome.COMPLETE);
    assertThat(got).containsExactly("1:b1", "2:b2");
  }

  @Test
  void anOversizedFrameIsRefusedByZmqAndTheRequestEndsAtItsTimeout() {
    byte[] huge = new byte[2 << 20];
    String at =
        router(
            "tcp://127.0.0.1:*",
            new AtomicLong(),
            s -> List.of(List.of(EMPTY, TOPIC, seq(0), huge), end(Layout.TOPIC)));
    long t0 = System.nanoTime();
    Outcome o = client(Duration.ofMillis(500), 1 << 20).request(ctx, at, 0, answers());
    assertThat(o).isEqualTo(Outcome.TIMED_OUT);
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    assertThat(got).isEmpty();
    // At the default bound the same answer goes through.
    assertThat(client(LONG).request(ctx, at, 0, answers())).isEqualTo(Outcome.COMPLETE);
    assertThat(got).containsExactly("0:" + new String(huge, StandardCharsets.UTF_8));
  }

  @Test
  void anAnswerThatNeverEndsIsCutAtTheTimeout() {
    AtomicLong sent = new AtomicLong();
    String at =
        router(
            "inproc://replay-endless",
            new AtomicLong(),
            s ->
                // Valid, ever-increasing batches for as long as the test runs.
                () ->
                    new java.util.Iterator<List<byte[]>>() {
                      long next = s;

                      @Override
                      public boolean hasNext() {
                        return serving.get();
                      }

                      @Override
                      public List<byte[]> next() {
                        if (next % 100 == 0) {
                          sleep(1);
                        }
                        sent.incrementAndGet();
                        return Layout.TOPIC.frames(TOPIC, seq(next++), bytes("b"));
                      }
                    });
    long t0 = System.nanoTime();
    Outcome o = client(Duration.ofMillis(300)).request(ctx, at, 0, answers());
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    assertThat(o).isEqualTo(Outcome.TIMED_OUT);
    assertThat(took)
        .isGreaterThanOrEqualTo(Duration.ofMillis(290))
        .isLessThan(Duration.ofSeconds(2));
    assertThat(got).isNotEmpty();
    assertThat(sent.get()).isGreaterThanOrEqualTo(got.size());
    assertThat(malformed).isEmpty();
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
    assertThat(stopped.request(ctx, "inproc://nobody", 0, answers())).isEqualTo(Outcome.TIMED_OUT);
    assertThat(got).isEmpty();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
