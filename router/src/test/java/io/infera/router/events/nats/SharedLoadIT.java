package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.policy.Booking;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.Worker;
import io.infera.router.testing.NatsServer;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two router replicas sharing load through a real nats-server. */
class SharedLoadIT {

  private static final String SUBJECT = EventSubjects.loadSubject(EventSubjects.DEFAULT_PREFIX);
  private static final WorkerId W0 = WorkerId.of("w0");
  private static final WorkerId W1 = WorkerId.of("w1");
  private static final List<Worker> WORKERS =
      List.of(Worker.of("w0", Role.MIXED), Worker.of("w1", Role.MIXED));
  private static final SharedLoad.Settings FAST =
      new SharedLoad.Settings(Duration.ofMillis(200), Duration.ofMillis(800));

  @TempDir Path dir;
  private NatsServer server;
  private final LoadTracker a = new LoadTracker();
  private final LoadTracker b = new LoadTracker();

  @BeforeEach
  void startServer() throws Exception {
    server = NatsServer.start(dir.resolve("nats"));
  }

  @AfterEach
  void stopServer() throws Exception {
    server.close();
  }

  @Test
  void bookingsAppearAtTheOtherReplicaWithinMillisecondsAndReleasesRemoveThem() throws Exception {
    assertThat(SUBJECT).isEqualTo("infera.load");
    try (SharedLoad sa = up(SharedLoad.connect(server.url(), SUBJECT, a, FAST));
        SharedLoad sb = up(SharedLoad.connect(server.url(), SUBJECT, b, FAST))) {
      await().atMost(Duration.ofSeconds(5)).until(() -> sb.stats().replicas() == 1);
      List<Long> nanos = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        long t0 = System.nanoTime();
        Booking booking = a.book(W0, new long[] {3L * i, 3L * i + 1, 3L * i + 2}, 3);
        waitFor(() -> b.snapshot(WORKERS).of(W0).activeBlocks() == 3);
        long booked = System.nanoTime() - t0;
        t0 = System.nanoTime();
        booking.close();
        waitFor(() -> b.snapshot(WORKERS).of(W0).activeBlocks() == 0);
        if (i >= 10) { // the first rounds warm up the JIT
          nanos.add(booked);
          nanos.add(System.nanoTime() - t0);
        }
      }
      Collections.sort(nanos);
      System.out.printf(
          "SharedLoadIT: book/release propagation median %.3f ms, max %.3f ms (%d samples)%n",
          nanos.get(nanos.size() / 2) / 1e6, nanos.get(nanos.size() - 1) / 1e6, nanos.size());
      assertThat(nanos.get(nanos.size() - 1)).isLessThan(Duration.ofMillis(50).toNanos());
      assertThat(b.snapshot(WORKERS).of(W0).inFlight()).isZero();
      // By default A's picks are not charged at B (SharedLoad.Settings#remotePicks).
      assertThat(b.snapshot(WORKERS).of(W0).recentBlocks()).isZero();
      assertThat(sb.stats().malformed()).isZero();
      assertThat(sa.stats().fromSelf()).isPositive();
    }
  }

  @Test
  void aReplicaWhoseConnectionDiesStopsCountingAfterTheExpiry() throws Exception {
    Connection nca = Nats.connect(LoadSharingConnection.options(server.url()));
    try (SharedLoad sa = SharedLoad.start(nca, SUBJECT, a, FAST);
        SharedLoad sb = up(SharedLoad.connect(server.url(), SUBJECT, b, FAST))) {
      a.book(W1, new long[] {1, 2, 3, 4}, 4); // never released
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> b.snapshot(WORKERS).of(W1).activeBlocks() == 4);
      long t0 = System.nanoTime();
      nca.close(); // no goodbye, no release
      // Heartbeats kept A alive so far; now it is silent, and counts until the expiry.
      Thread.sleep(FAST.expiry().toMillis() / 2);
      assertThat(b.snapshot(WORKERS).of(W1).activeBlocks()).isEqualTo(4);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> b.snapshot(WORKERS).of(W1).activeBlocks() == 0);
      long gone = System.nanoTime() - t0;
      assertThat(gone).isGreaterThanOrEqualTo(FAST.expiry().toNanos());
      assertThat(sb.stats().expired()).isEqualTo(1);
      assertThat(sb.stats().replicas()).isZero();
      assertThat(sa.stats().publishFailures()).isPositive();
    }
  }

  @Test
  void aGracefulCloseIsForgottenAtOnce() throws Exception {
    try (SharedLoad sb = up(SharedLoad.connect(server.url(), SUBJECT, b, FAST))) {
      SharedLoad sa = up(SharedLoad.connect(server.url(), SUBJECT, a, FAST));
      a.book(W0, new long[] {1, 2}, 2);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> b.snapshot(WORKERS).of(W0).activeBlocks() == 2);
      long t0 = System.nanoTime();
      sa.close();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> b.snapshot(WORKERS).of(W0).activeBlocks() == 0);
      assertThat(System.nanoTime() - t0).isLessThan(FAST.expiry().toNanos());
      assertThat(sb.stats().expired()).isZero();
    }
  }

  @Test
  void replicasFindEachOtherAgainAfterTheServerRestarts() throws Exception {
    try (SharedLoad sa = up(SharedLoad.connect(server.url(), SUBJECT, a, FAST));
        SharedLoad sb = up(SharedLoad.connect(server.url(), SUBJECT, b, FAST))) {
      a.book(W0, new long[] {1, 2, 3}, 3);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> b.snapshot(WORKERS).of(W0).activeBlocks() == 3);
      server.kill();
      // While the server is down, A is silent for B and expires.
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> b.snapshot(WORKERS).of(W0).activeBlocks() == 0);
      a.book(W1, new long[] {7}, 1); // during the outage
      server.restart();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  b.snapshot(WORKERS).of(W0).activeBlocks() == 3
                      && b.snapshot(WORKERS).of(W1).activeBlocks() == 1);
      assertThat(sa.stats().replicas()).isEqualTo(1);
    }
  }

  @Test
  void aRouterStartsUnsharedWhileTheServerIsDownAndJoinsWhenItComesUp() throws Exception {
    server.kill();
    long t0 = System.nanoTime();
    try (SharedLoad sa = SharedLoad.connect(server.url(), SUBJECT, a, FAST)) {
      // Returns at once, without the broker: the router's start never waits for it.
      assertThat(System.nanoTime() - t0).isLessThan(Duration.ofSeconds(1).toNanos());
      assertThat(sa.connected()).isFalse();
      a.book(W0, new long[] {1, 2}, 2);
      assertThat(a.snapshot(WORKERS).of(W0).activeBlocks()).isEqualTo(2);
      server.restart();
      try (SharedLoad sb = up(SharedLoad.connect(server.url(), SUBJECT, b, FAST))) {
        await().atMost(Duration.ofSeconds(10)).until(sa::connected);
        // A's heartbeat carries what it booked before the broker was there.
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> b.snapshot(WORKERS).of(W0).activeBlocks() == 2);
        assertThat(sa.stats().publishFailures()).isPositive();
      }
    }
  }

  private static void waitFor(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 2 s");
      }
      Thread.onSpinWait();
    }
  }

  /** connect() returns at once; the subscription comes up in the background. */
  private static SharedLoad up(SharedLoad s) {
    await().atMost(Duration.ofSeconds(10)).until(s::connected);
    return s;
  }
}
