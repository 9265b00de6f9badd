package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.SharedLoadCodec;
import io.infera.router.nats.SharedLoadMessage;
import io.infera.router.nats.SharedLoadMessage.BindingEntry;
import io.infera.router.nats.SharedLoadMessage.Bindings;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.SessionBinding;
import io.infera.router.policy.SessionBindings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Session bindings on the load subject, without NATS: replicas on a list. */
class SharedBindingsTest {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AtomicLong millis = new AtomicLong(1_000);
  private final List<byte[]> wire = new ArrayList<>();

  private SharedLoad sharing(long id, SessionBindings b) {
    SharedLoad s =
        new SharedLoad(
            id,
            new LoadTracker(),
            new SharedLoad.Settings(Duration.ofSeconds(1), Duration.ofSeconds(3)),
            wire::add,
            nanos::get);
    s.shareBindings(b);
    s.workers(Set.of(WorkerId.of("a"), WorkerId.of("b"), WorkerId.of("d")));
    return s;
  }

  private List<Bindings> sent() throws Exception {
    List<Bindings> out = new ArrayList<>();
    for (byte[] m : wire) {
      if (SharedLoadCodec.decode(m) instanceof Bindings b) {
        out.add(b);
      }
    }
    return out;
  }

  private static SessionBinding bound(String w, long version, long origin) {
    return new SessionBinding(WorkerId.of(w), -1, null, -1, version, origin);
  }

  @Test
  void aBindingMadeHereIsPublishedAtOnceAndAppliedByAPeer() throws Exception {
    SessionBindings mine = new SessionBindings(100, 60_000, millis::get);
    SessionBindings theirs = new SessionBindings(100, 60_000, millis::get);
    SharedLoad a = sharing(1, mine);
    SharedLoad b = sharing(2, theirs);
    mine.put(42, bound("a", 1, 1));
    assertThat(sent()).hasSize(1);
    for (byte[] m : List.copyOf(wire)) {
      b.receive(m);
      a.receive(m); // its own echo: ignored
    }
    assertThat(theirs.peek(42)).isEqualTo(bound("a", 1, 1));
    assertThat(b.status()).containsEntry("bindings_applied", 1L);
    assertThat(a.status()).containsEntry("bindings_applied", 0L);
    assertThat(theirs.stats().size()).isEqualTo(1);
    wire.clear();
    theirs.merge(42, bound("a", 1, 1)); // merged bindings are not re-announced
    assertThat(wire).isEmpty();
  }

  @Test
  void bindingsNamingUnknownWorkersAreRefusedAndStaleOnesIgnored() throws Exception {
    SessionBindings t = new SessionBindings(100, 60_000, millis::get);
    SharedLoad s = sharing(1, t);
    t.put(1, bound("a", 5, 1));
    s.receive(
        SharedLoadCodec.encode(
            new Bindings(
                9,
                List.of(
                    new BindingEntry(1, WorkerId.of("b"), -1, null, -1, 4, 9), // stale
                    new BindingEntry(2, WorkerId.of("forged"), -1, null, -1, 1, 9),
                    new BindingEntry(3, WorkerId.of("a"), -1, WorkerId.of("nope"), 0, 1, 9),
                    new BindingEntry(4, null, -1, WorkerId.of("d"), 2, 1, 9)))));
    assertThat(s.status())
        .containsEntry("bindings_stale", 1L)
        .containsEntry("bindings_refused", 2L)
        .containsEntry("bindings_applied", 1L);
    assertThat(t.peek(1).first()).isEqualTo(WorkerId.of("a"));
    assertThat(t.peek(2)).isNull();
    assertThat(t.peek(3)).isNull();
    assertThat(t.peek(4)).isEqualTo(new SessionBinding(null, -1, WorkerId.of("d"), 2, 1, 9));
  }

  @Test
  void aFloodOfForgedBindingsNeverGrowsTheTablePastItsCap() throws Exception {
    SessionBindings t = new SessionBindings(50, 60_000, millis::get);
    SharedLoad s = sharing(1, t);
    for (int m = 0; m < 20; m++) {
      List<BindingEntry> es = new ArrayList<>();
      for (int i = 0; i < SharedLoadMessage.MAX_BINDING_ENTRIES; i++) {
        es.add(new BindingEntry(m * 10_000L + i, WorkerId.of("a"), -1, null, -1, 1, 9));
      }
      s.receive(SharedLoadCodec.encode(new Bindings(9, es)));
    }
    assertThat(t.size()).isEqualTo(50);
    s.receive(new byte[] {'I', 'L', 1, 5, 0, 0, 0, 0, 0, 0, 0, 9, (byte) 0xff, (byte) 0xff});
    assertThat(s.stats().malformed()).isEqualTo(1);
  }

  @Test
  void bindingsInUseAreRefreshedWithTheHeartbeat() throws Exception {
    SessionBindings t = new SessionBindings(100, 30_000, millis::get);
    SharedLoad s = sharing(1, t);
    t.put(7, bound("a", 1, 1));
    wire.clear();
    millis.addAndGet(10_000);
    t.use(7);
    s.tick(); // the first tick sends a heartbeat, weights (none) and the refreshes
    List<Bindings> refreshed = sent();
    assertThat(refreshed).hasSize(1);
    assertThat(refreshed.get(0).entries())
        .containsExactly(new BindingEntry(7, WorkerId.of("a"), -1, null, -1, 1, 1));
  }

  @Test
  void afterCloseNothingMoreIsAnnounced() throws Exception {
    SessionBindings t = new SessionBindings(100, 30_000, millis::get);
    SharedLoad s = sharing(1, t);
    s.close();
    wire.clear();
    t.put(1, bound("a", 1, 1));
    assertThat(sent()).isEmpty();
  }
}
