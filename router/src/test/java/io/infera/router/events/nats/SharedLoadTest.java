package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infera.router.config.LoadModel;
import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.SharedLoadCodec;
import io.infera.router.nats.SharedLoadMessage.Entry;
import io.infera.router.nats.SharedLoadMessage.Heartbeat;
import io.infera.router.nats.SharedLoadMessage.Update;
import io.infera.router.policy.Booking;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.PeerLoadTable;
import io.infera.router.policy.Worker;
import io.infera.router.policy.WorkerLoad;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The sharing protocol without NATS: replicas on an in-memory bus with a fake clock. */
class SharedLoadTest {

  private static final WorkerId W0 = WorkerId.of("w0");
  private static final WorkerId W1 = WorkerId.of("w1");
  private static final List<Worker> WORKERS =
      List.of(Worker.of("w0", Role.MIXED), Worker.of("w1", Role.MIXED));
  private static final SharedLoad.Settings SETTINGS =
      new SharedLoad.Settings(Duration.ofSeconds(1), Duration.ofSeconds(3));

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final Bus bus = new Bus();

  /** Messages published by any replica, delivered to all (the sender too) on {@link #deliver}. */
  private static final class Bus {
    final List<SharedLoad> members = new ArrayList<>();
    final Deque<byte[]> queue = new ArrayDeque<>();
    boolean losing;

    SharedLoad.Publisher publisher() {
      return bytes -> {
        if (!losing) {
          queue.add(bytes);
        }
      };
    }

    void deliver() {
      while (!queue.isEmpty()) {
        byte[] m = queue.poll();
        for (SharedLoad s : List.copyOf(members)) {
          s.receive(m);
        }
      }
    }
  }

  private record Replica(LoadTracker tracker, SharedLoad sharing) {
    WorkerLoad sees(WorkerId w) {
      return tracker.snapshot(WORKERS).of(w);
    }
  }

  private Replica replica(long id) {
    return replica(id, SETTINGS);
  }

  private Replica replica(long id, SharedLoad.Settings settings) {
    // Charges drain on the test's clock at 1,000 blocks/s (1 per ms).
    LoadTracker t = new LoadTracker(new LoadModel(1_000, false), clock::get);
    SharedLoad s = new SharedLoad(id, t, settings, bus.publisher(), clock::get);
    t.share(s);
    bus.members.add(s);
    return new Replica(t, s);
  }

  private void advance(Duration d) {
    clock.addAndGet(d.toNanos());
  }

  @Test
  void bookingsOfOneReplicaAppearInTheOthersSnapshotAndReleasesRemoveThem() {
    Replica a = replica(1);
    Replica b = replica(2);
    Booking one = a.tracker.book(W0, new long[] {1, 2, 3}, 3);
    Booking two = a.tracker.book(W0, new long[] {1, 2, 4}, 1);
    bus.deliver();
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(4);
    assertThat(b.sees(W0).inFlight()).isEqualTo(2);
    assertThat(b.tracker.localLoad(W0).activeBlocks()).isZero();
    // B's own bookings add to A's.
    Booking mine = b.tracker.book(W0, new long[] {9}, 1);
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(5);
    assertThat(b.sees(W0).inFlight()).isEqualTo(3);
    one.close();
    bus.deliver();
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(4);
    two.close();
    mine.close();
    bus.deliver();
    assertThat(b.sees(W0)).isEqualTo(new WorkerLoad(0, b.sees(W0).recentBlocks(), 0));
    assertThat(a.sees(W0).activeBlocks()).isZero();
  }

  @Test
  void byDefaultOtherReplicasPicksAreNotChargedToRecentBlocks() {
    Replica a = replica(1);
    Replica b = replica(2);
    b.tracker.book(W1, new long[] {7, 8}, 2);
    a.tracker.book(W0, new long[] {1, 2, 3, 4}, 4);
    bus.deliver();
    assertThat(b.sees(W0).recentBlocks()).isZero();
    assertThat(b.sees(W1).recentBlocks()).isCloseTo(2, within(1e-12));
    assertThat(a.sees(W0).recentBlocks()).isCloseTo(4, within(1e-12));
  }

  @Test
  void remotePicksWhenEnabledAreChargedAndDrainWithTimeLikeLocalPicks() {
    Replica a = replica(1, SETTINGS.withRemotePicks(true));
    Replica b = replica(2, SETTINGS.withRemotePicks(true));
    b.tracker.book(W1, new long[] {7, 8}, 2);
    bus.deliver();
    a.tracker.book(W0, new long[] {1, 2, 3, 4}, 4);
    bus.deliver();
    // Both replicas see the same charges: the fleet's picks, as one router would.
    assertThat(b.sees(W0).recentBlocks()).isCloseTo(4, within(1e-12));
    assertThat(b.sees(W1).recentBlocks()).isCloseTo(2, within(1e-12));
    assertThat(a.sees(W0).recentBlocks()).isCloseTo(b.sees(W0).recentBlocks(), within(1e-12));
    assertThat(a.sees(W1).recentBlocks()).isCloseTo(b.sees(W1).recentBlocks(), within(1e-12));
    // No first token is heard of across replicas: the remote charges drain with time.
    advance(Duration.ofMillis(3));
    assertThat(b.sees(W0).recentBlocks()).isCloseTo(1, within(1e-9));
    assertThat(b.sees(W1).recentBlocks()).isZero();
    assertThat(a.sees(W1).recentBlocks()).isZero();
    advance(Duration.ofMillis(1));
    assertThat(b.sees(W0).recentBlocks()).isZero();
  }

  @Test
  void aReplicaIgnoresItsOwnMessages() {
    Replica a = replica(1, SETTINGS.withRemotePicks(true));
    a.tracker.book(W0, new long[] {1, 2}, 2);
    a.sharing.heartbeat();
    bus.deliver();
    assertThat(a.sees(W0).activeBlocks()).isEqualTo(2);
    assertThat(a.sees(W0).inFlight()).isEqualTo(1);
    assertThat(a.sees(W0).recentBlocks()).isCloseTo(2, within(1e-12));
    assertThat(a.sharing.stats().fromSelf()).isEqualTo(2);
    assertThat(a.sharing.stats().received()).isZero();
    assertThat(a.sharing.stats().replicas()).isZero();
  }

  @Test
  void aSilentReplicaStopsCountingAfterTheExpiry() {
    Replica a = replica(1);
    Replica b = replica(2);
    a.tracker.book(W0, new long[] {1, 2, 3}, 3); // never released: A "dies" holding it
    bus.deliver();
    bus.members.remove(a.sharing);
    advance(Duration.ofMillis(2900));
    b.sharing.tick();
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(3);
    advance(Duration.ofMillis(200));
    b.sharing.tick();
    assertThat(b.sees(W0).activeBlocks()).isZero();
    assertThat(b.sharing.stats().expired()).isEqualTo(1);
    assertThat(b.sharing.stats().replicas()).isZero();
  }

  @Test
  void heartbeatsKeepALiveReplicaCountedAndRepairLostMessages() {
    Replica a = replica(1);
    Replica b = replica(2);
    Booking held = a.tracker.book(W0, new long[] {1, 2, 3}, 3);
    bus.deliver();
    bus.losing = true;
    Booking lost = a.tracker.book(W1, new long[] {4, 5}, 2); // B never hears of this booking...
    held.close(); // ...nor of this release
    a.tracker.book(W0, new long[] {6}, 1);
    bus.losing = false;
    bus.deliver();
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(3); // stale
    assertThat(b.sees(W1).activeBlocks()).isZero();
    for (int i = 0; i < 5; i++) {
      advance(Duration.ofMillis(1000));
      a.sharing.tick();
      b.sharing.tick();
      bus.deliver();
    }
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(1);
    assertThat(b.sees(W1).activeBlocks()).isEqualTo(2);
    assertThat(b.sharing.stats().expired()).isZero();
    bus.losing = true;
    lost.close();
    bus.losing = false;
    advance(Duration.ofMillis(1000));
    a.sharing.tick();
    bus.deliver();
    assertThat(b.sees(W1).activeBlocks()).isZero();
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(1);
  }

  @Test
  void aLateJoinerIsBroughtUpToDateAtOnce() {
    Replica a = replica(1);
    a.tracker.book(W0, new long[] {1, 2, 3, 4}, 4);
    bus.deliver();
    Replica c = replica(3);
    c.sharing.heartbeat(); // what start() does first: announce itself
    bus.deliver(); // A answers a newcomer with an immediate heartbeat
    assertThat(c.sees(W0).activeBlocks()).isEqualTo(4);
    assertThat(c.sharing.stats().replicas()).isEqualTo(1);
    assertThat(a.sharing.stats().replicas()).isEqualTo(1);
  }

  @Test
  void olderUpdatesAndHeartbeatsNeverUndoNewerOnes() {
    Replica b = replica(2);
    long a = 1;
    b.sharing.receive(update(a, new Entry(W0, 5, 10, 2, false, 0)));
    b.sharing.receive(update(a, new Entry(W0, 4, 99, 9, false, 0))); // arrived late
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(10);
    // A heartbeat taken at seq 3 neither lists w0 nor drops it: seq 5 is newer.
    b.sharing.receive(SharedLoadCodec.encode(new Heartbeat(a, 3, List.of())));
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(10);
    // One taken at seq 6 without w0 means A's load there ended.
    b.sharing.receive(SharedLoadCodec.encode(new Heartbeat(a, 6, List.of())));
    assertThat(b.sees(W0)).isEqualTo(WorkerLoad.IDLE);
  }

  @Test
  void aClosingReplicaSaysGoodbyeAndItsTrackerIsLocalAgain() {
    Replica a = replica(1);
    Replica b = replica(2);
    a.tracker.book(W0, new long[] {1, 2}, 2);
    b.tracker.book(W1, new long[] {3}, 1);
    bus.deliver();
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(2);
    a.sharing.close();
    bus.deliver();
    assertThat(b.sees(W0).activeBlocks()).isZero();
    assertThat(b.sharing.stats().replicas()).isZero();
    assertThat(a.sees(W1).activeBlocks()).isZero();
    long published = a.sharing.stats().published();
    a.tracker.book(W0, new long[] {5}, 1).close();
    assertThat(a.sharing.stats().published()).isEqualTo(published);
  }

  @Test
  void malformedMessagesAreCountedAndSkipped() {
    Replica b = replica(2, SETTINGS.withRemotePicks(true));
    b.sharing.receive(new byte[] {1, 2, 3});
    b.sharing.receive(new byte[0]);
    b.sharing.receive(update(9, new Entry(W0, 1, 3, 1, true, 3)));
    assertThat(b.sharing.stats().malformed()).isEqualTo(2);
    assertThat(b.sees(W0).activeBlocks()).isEqualTo(3);
    assertThat(b.sees(W0).recentBlocks()).isCloseTo(3, within(1e-12));
  }

  @Test
  void publishFailuresAreCountedNeverThrown() {
    LoadTracker t = new LoadTracker();
    SharedLoad s =
        new SharedLoad(
            1,
            t,
            SETTINGS,
            bytes -> {
              throw new IllegalStateException("Connection is Closed");
            },
            clock::get);
    t.share(s);
    t.book(W0, new long[] {1}, 1).close();
    assertThat(s.stats().publishFailures()).isEqualTo(2);
    assertThat(t.load(W0).activeBlocks()).isZero();
  }

  @Test
  void settingsAreValidated() {
    assertThat(SharedLoad.Settings.withExpiry(Duration.ofMillis(900)).heartbeat())
        .isEqualTo(Duration.ofMillis(300));
    assertThat(SharedLoad.Settings.withExpiry(Duration.ofSeconds(10)).heartbeat())
        .isEqualTo(Duration.ofSeconds(1));
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new SharedLoad.Settings(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("expiry");
  }

  private static byte[] update(long replica, Entry e) {
    return SharedLoadCodec.encode(new Update(replica, List.of(e)));
  }

  /**
   * A forged message naming workers discovery does not know (and a huge remote pick charge on a
   * known one) is contained: unknown workers never enter the tables or the tracker, the charge is
   * capped, and both are counted.
   */
  @Test
  void forgedWorkersAndChargesAreIgnoredOrCapped() {
    Replica b = replica(2, SETTINGS.withRemotePicks(true));
    b.sharing.workers(java.util.Set.of(W0, W1));
    WorkerId forged = WorkerId.of("forged");
    b.sharing.receive(
        io.infera.router.nats.SharedLoadCodec.encode(
            new io.infera.router.nats.SharedLoadMessage.Update(
                66,
                List.of(
                    new io.infera.router.nats.SharedLoadMessage.Entry(
                        forged, 1, 1000, 10, true, 1e9),
                    new io.infera.router.nats.SharedLoadMessage.Entry(
                        W0, 1, Long.MAX_VALUE, Integer.MAX_VALUE, true, 1e9)))));
    assertThat(b.tracker.load(forged)).isEqualTo(WorkerLoad.IDLE);
    WorkerLoad w0 = b.sees(W0);
    assertThat(w0.activeBlocks()).isEqualTo(PeerLoadTable.MAX_ACTIVE_BLOCKS);
    assertThat(w0.inFlight()).isEqualTo(PeerLoadTable.MAX_IN_FLIGHT);
    assertThat(w0.recentBlocks()).isLessThanOrEqualTo(PeerLoadTable.MAX_ACTIVE_BLOCKS);
    SharedLoad.Stats st = b.sharing.stats();
    // The forged worker's entry and its pick.
    assertThat(st.unknownWorkers()).isEqualTo(2);
    assertThat(st.clamped()).isEqualTo(1);
    assertThat(b.sharing.status()).containsKeys("clamped", "unknown_workers", "ignored_replicas");
  }
}
