package io.infera.router.events.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.Role;
import io.infera.router.nats.SharedLoadCodec;
import io.infera.router.nats.SharedLoadMessage;
import io.infera.router.nats.SharedLoadMessage.WeightEntry;
import io.infera.router.nats.SharedLoadMessage.Weights;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.tuner.OverlapTuning;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Overlap-weight estimates on the load subject, without NATS: two replicas on a list. */
class SharedWeightsTest {

  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private final List<byte[]> wire = new ArrayList<>();

  private SharedLoad sharing(long id, OverlapTuning tuning) {
    SharedLoad s =
        new SharedLoad(
            id,
            new LoadTracker(),
            new SharedLoad.Settings(Duration.ofSeconds(1), Duration.ofSeconds(3)),
            wire::add,
            clock::get);
    s.shareWeights(tuning);
    return s;
  }

  /** The router's default tuning, starting at 1.0 (these tests count grid steps from there). */
  private static OverlapTuning tuned() {
    return new OverlapTuning(
        new PolicyConfig(
            PolicyName.KV_AWARE,
            PolicyConfig.DEFAULT_OVERLAP_WEIGHT,
            null,
            null,
            io.infera.router.config.OverlapWeightMode.AUTO,
            new io.infera.router.config.TunerConfig(
                io.infera.router.config.TunerConfig.DEFAULT_MIN_WEIGHT,
                io.infera.router.config.TunerConfig.DEFAULT_MAX_WEIGHT,
                1.0,
                io.infera.router.config.TunerConfig.DEFAULT_EPOCH_REQUESTS)));
  }

  private static double weight(OverlapTuning t) {
    return t.status().get(0).s().weight();
  }

  private List<Weights> sentWeights() throws Exception {
    List<Weights> out = new ArrayList<>();
    for (byte[] b : wire) {
      SharedLoadMessage m = SharedLoadCodec.decode(b);
      if (m instanceof Weights w) {
        out.add(w);
      }
    }
    return out;
  }

  @Test
  void aTickSendsTheEstimatesAndAPeerIsPulledTowardsThem() throws Exception {
    OverlapTuning a = tuned();
    OverlapTuning b = tuned();
    a.booked("workers", Role.MIXED, 4); // both route to the pool
    b.booked("workers", Role.MIXED, 4);
    a.mergePeer("seed", List.of(new OverlapTuning.Estimate("workers", Role.MIXED, 8, 1000)), 0);
    assertThat(weight(a)).isEqualTo(8.0);
    SharedLoad sa = sharing(1, a);
    SharedLoad sb = sharing(2, b);
    sa.tick();
    List<Weights> sent = sentWeights();
    assertThat(sent).hasSize(1);
    assertThat(sent.get(0).estimates()).containsExactly(new WeightEntry("workers", 0, 8.0, 0));
    for (byte[] m : List.copyOf(wire)) {
      sb.receive(m);
    }
    // b has no samples either: the geometric mean of 1 and 8 is a grid step or more from 1
    assertThat(weight(b)).isGreaterThan(1.0);
    assertThat(b.status().get(0).s().merge()).isEqualTo(1);
  }

  @Test
  void aFixedWeightReplicaSharesNothingAndIgnoresPeers() throws Exception {
    OverlapTuning fixed = new OverlapTuning(PolicyConfig.defaults());
    fixed.booked("workers", Role.MIXED, 4);
    SharedLoad s = sharing(3, fixed);
    s.tick();
    assertThat(sentWeights()).isEmpty();
    s.receive(
        SharedLoadCodec.encode(new Weights(9, List.of(new WeightEntry("workers", 0, 16.0, 100)))));
    assertThat(fixed.status().get(0).s().weight()).isEqualTo(1.0);
  }

  @Test
  void estimatesForPoolsThisReplicaDoesNotRouteToAreIgnored() {
    OverlapTuning t = tuned();
    t.booked("workers", Role.MIXED, 4);
    SharedLoad s = sharing(4, t);
    s.receive(
        SharedLoadCodec.encode(
            new Weights(
                9,
                List.of(
                    new WeightEntry("other", 0, 16.0, 100),
                    new WeightEntry("workers", 1, 16.0, 100)))));
    assertThat(t.status()).hasSize(1);
    assertThat(weight(t)).isEqualTo(1.0);
  }

  @Test
  void aHostileSenderCannotOutvoteTheFleetOrGrowTheTables() {
    OverlapTuning t = tuned();
    t.booked("workers", Role.MIXED, 4);
    SharedLoad s = sharing(5, t);
    // Many forged replicas, each claiming huge evidence for the upper bound: at most
    // MAX_PEERS are remembered, and the weight stays within the tuner's bounds.
    for (int i = 0; i < 10 * OverlapTuning.MAX_PEERS; i++) {
      s.receive(
          SharedLoadCodec.encode(
              new Weights(100 + i, List.of(new WeightEntry("workers", 0, 1e6, Long.MAX_VALUE)))));
    }
    assertThat(weight(t)).isEqualTo(32.0); // clamped to policy.tuner.maxWeight
    // Malformed bytes are counted and change nothing.
    long before = s.stats().malformed();
    s.receive(new byte[] {'I', 'L', 1, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0});
    assertThat(s.stats().malformed()).isEqualTo(before + 1);
  }
}
