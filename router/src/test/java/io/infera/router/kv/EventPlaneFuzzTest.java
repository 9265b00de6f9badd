package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import io.infera.router.nats.SharedLoadCodec;
import io.infera.router.nats.SharedLoadMessage;
import io.infera.router.policy.LoadTracker;
import io.infera.router.policy.PeerLoadTable;
import io.infera.router.policy.WorkerLoad;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The event plane's inputs, fuzzed end to end (1,050,000 payloads per run): mutated vLLM and SGLang
 * KV-event batches (the upstream fixtures and chains of realistic batches in both wire shapes),
 * view snapshots and load-sharing messages — bit flips, interesting bytes, truncation, inflated
 * length fields, type confusion, insertions, splices — go through the real decoders into a real
 * {@link PrefixIndex} with small caps and a rate-limited reset, and into a {@link PeerLoadTable}.
 *
 * <p>Nothing but the decoders' own exceptions may escape; afterwards the index is at or under its
 * caps, its held count matches its views, every view drains to nothing by removing what it holds
 * (reference counts never went negative or astray), its tables stay within the sizing rule, and the
 * peer table holds only known workers within its bounds. {@code -Dfuzz.seed=N} replays a run.
 */
class EventPlaneFuzzTest {

  private static final int RUNS = 1_050_000;
  private static final int PAGE = 16;
  private static final int WORKERS = 6;
  private static final int DP = 2;
  private static final long PER_SOURCE = 3_000;
  private static final long TOTAL = 20_000;
  private static final byte[] INTERESTING = {
    (byte) 0xdd,
    (byte) 0xdc,
    (byte) 0xdb,
    (byte) 0xdf,
    (byte) 0xde,
    (byte) 0xc6,
    (byte) 0xc9,
    (byte) 0xc1,
    (byte) 0xcf,
    (byte) 0xd3,
    (byte) 0xcb,
    (byte) 0xff,
    0x00,
    0x7f,
    (byte) 0x80,
    (byte) 0x8f,
    (byte) 0x90,
    (byte) 0x9f,
    (byte) 0xa0,
    (byte) 0xbf,
    (byte) 0xc0,
    (byte) 0xc3
  };

  private final List<WorkerId> workers = new ArrayList<>();

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void mutatedEventPlaneInputsAreContainedAndLeaveTheIndexConsistent() {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    Random r = new Random(seed);
    for (int w = 0; w < WORKERS; w++) {
      workers.add(WorkerId.of(w % 2 == 0 ? "vllm-decode-" + w : "sglang-" + w));
    }
    long[] clock = {1};
    PrefixIndex index =
        new PrefixIndex(PAGE, new IndexLimits(PER_SOURCE, TOTAL, 60, 3), () -> clock[0]);
    PeerLoadTable peers = new PeerLoadTable(Duration.ofSeconds(3), 8192, () -> clock[0]);
    peers.workers(new HashSet<>(workers));

    List<byte[]> events = eventCorpus(r);
    List<byte[]> snapshots = snapshotCorpus(r);
    List<byte[]> loads = loadCorpus(r);
    long[] seq = new long[WORKERS * DP];
    Map<String, Integer> outcomes = new java.util.TreeMap<>();
    long bytesIn = 0;
    long start = System.nanoTime();
    for (int run = 0; run < RUNS; run++) {
      clock[0] += 1_000_000; // 1 ms per input: resets refill at 1 per second
      int kind = r.nextInt(20);
      List<byte[]> corpus = kind < 16 ? events : kind < 18 ? snapshots : loads;
      byte[] clean = corpus.get(r.nextInt(corpus.size()));
      byte[] input =
          r.nextInt(4) == 0 ? clean : mutate(clean, corpus.get(r.nextInt(corpus.size())), r);
      bytesIn += input.length;
      String outcome;
      try {
        outcome =
            kind < 16
                ? event(index, input, r, seq)
                : kind < 18 ? snapshot(index, input, r) : load(peers, input);
      } catch (Throwable t) {
        throw new AssertionError(
            "escaped with "
                + t
                + " (seed "
                + seed
                + ", run "
                + run
                + ") on "
                + HexFormat.of().formatHex(input),
            t);
      }
      outcomes.merge(outcome, 1, Integer::sum);
      if (run % 50_000 == 0) {
        checkBounds(index, peers);
      }
      if (r.nextInt(200_000) == 0) {
        peers.expire();
      }
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    checkBounds(index, peers);
    IndexStats stats = index.stats();
    System.out.printf(
        "EventPlaneFuzzTest seed=%d payloads=%d bytes=%d millis=%d perSecond=%d outcomes=%s"
            + " held=%d drops=%s%n",
        seed,
        RUNS,
        bytesIn,
        millis,
        RUNS * 1000L / Math.max(1, millis),
        outcomes,
        index.heldBlocks(),
        nonZero(stats.dropped()));

    // Every path was reached, or the fuzzer is not reaching the decoders' depths.
    assertThat(outcomes)
        .as("seed %d", seed)
        .containsKeys(
            "event-applied",
            "event-rejected",
            "event-rank-dropped",
            "snapshot-seeded",
            "snapshot-rejected",
            "load-applied",
            "load-rejected");
    assertThat(stats.dropped(DropReason.SOURCE_FULL) + stats.dropped(DropReason.INDEX_FULL))
        .as("the caps were reached (seed %d)", seed)
        .isPositive();
    assertThat(stats.dropped(DropReason.RESET_RATE_LIMITED))
        .as("resets were rate-limited (seed %d)", seed)
        .isPositive();
    drainsToNothing(index);
  }

  // ------------------------------------------------------------------ feeding the real parts

  private String event(PrefixIndex index, byte[] input, Random r, long[] seq) {
    EventBatch batch;
    try {
      batch = KvEventDecoder.decode(input);
    } catch (EventDecodeException e) {
      index.recordDecodeError(workers.get(r.nextInt(WORKERS)));
      return "event-rejected";
    }
    int w = r.nextInt(WORKERS);
    // What EventIngest does: the batch's rank unless the transport knows it, checked against dp.
    int rank = r.nextInt(8) == 0 ? batch.rank() : r.nextInt(DP);
    if (rank >= DP) {
      index.reject(workers.get(w), DropReason.RANK_OUT_OF_RANGE);
      return "event-rank-dropped";
    }
    int s = w * DP + rank;
    long engineSeq;
    int pick = r.nextInt(50);
    if (pick == 0) {
      engineSeq = KvEventMessage.NO_SEQ;
    } else if (pick == 1) {
      engineSeq = Math.max(0, seq[s] - 1 - r.nextInt(5)); // a reset attempt
      seq[s] = engineSeq;
    } else if (pick == 2) {
      engineSeq = seq[s] += 2 + r.nextInt(3); // a gap
    } else {
      engineSeq = ++seq[s];
    }
    ApplyOutcome o = index.apply(workers.get(w), engineSeq, batch.withRank(rank));
    return o == ApplyOutcome.APPLIED ? "event-applied" : "event-" + o.name().toLowerCase();
  }

  private String snapshot(PrefixIndex index, byte[] input, Random r) {
    ViewSnapshot snap;
    try {
      snap = ViewSnapshot.decode(input);
    } catch (EventDecodeException e) {
      return "snapshot-rejected";
    }
    SourceId id = new SourceId(workers.get(r.nextInt(WORKERS)), r.nextInt(DP));
    if (!index.acceptsSnapshot(id, snap)) {
      return "snapshot-refused";
    }
    index.seed(id, snap);
    return "snapshot-seeded";
  }

  private static String load(PeerLoadTable peers, byte[] input) {
    SharedLoadMessage m;
    try {
      m = SharedLoadCodec.decode(input);
    } catch (SharedLoadCodec.MalformedException e) {
      return "load-rejected";
    }
    // What SharedLoad.receive does with a decoded message.
    if (m instanceof SharedLoadMessage.Bye) {
      peers.leave(m.replica());
    } else if (m instanceof SharedLoadMessage.Update u) {
      peers.update(u.replica(), changes(u.entries()));
    } else if (m instanceof SharedLoadMessage.Heartbeat h) {
      peers.heartbeat(h.replica(), h.seq(), changes(h.entries()));
    }
    return "load-applied";
  }

  private static List<LoadTracker.Change> changes(List<SharedLoadMessage.Entry> entries) {
    return entries.stream()
        .map(
            e ->
                new LoadTracker.Change(
                    e.worker(), e.seq(), e.activeBlocks(), e.inFlight(), e.pick(), e.charge()))
        .toList();
  }

  // ------------------------------------------------------------------ invariants

  private void checkBounds(PrefixIndex index, PeerLoadTable peers) {
    assertThat(index.heldBlocks()).isEqualTo(index.heldBlocksExact()).isLessThanOrEqualTo(TOTAL);
    for (IndexStats.SourceStats s : index.stats().sources()) {
      assertThat(s.blocks()).as("%s", s.source()).isLessThanOrEqualTo(PER_SOURCE);
      assertThat(s.source().dpRank()).isLessThan(DP);
    }
    // Memory: the tables within the sizing rule for the cap, plus each table's floor.
    int sources = index.stats().sources().size();
    assertThat(index.tableBytes())
        .isLessThanOrEqualTo(PrefixIndex.heapBytes(TOTAL, sources) + 4096L * (sources + 1));
    assertThat(peers.replicas()).isLessThanOrEqualTo(PeerLoadTable.MAX_REPLICAS);
    assertThat(peers.workersWithLoad()).isLessThanOrEqualTo(WORKERS);
    for (WorkerId w : workers) {
      WorkerLoad l = peers.remote(w);
      assertThat(l.activeBlocks()).isBetween(0L, PeerLoadTable.MAX_SUM_ACTIVE_BLOCKS);
      assertThat(l.inFlight()).isBetween(0, PeerLoadTable.MAX_SUM_IN_FLIGHT);
    }
  }

  /** Removing every reference a view holds (its snapshot lists each) must empty it exactly. */
  private void drainsToNothing(PrefixIndex index) {
    for (IndexStats.SourceStats s : index.stats().sources()) {
      ViewSnapshot held = index.snapshot(s.source(), 0);
      long[] engines = held.engineHashes();
      // In chunks, as an engine evicts.
      for (int from = 0; from < engines.length; from += 512) {
        long[] part = Arrays.copyOfRange(engines, from, Math.min(engines.length, from + 512));
        index.apply(
            s.source().worker(),
            KvEventMessage.NO_SEQ,
            new EventBatch(0, List.of(new BlockRemoved(part, null, null)), s.source().dpRank(), 0));
      }
      assertThat(index.viewHashes(s.source())).as("%s drained", s.source()).isEmpty();
      assertThat(index.snapshot(s.source(), 0).size()).isZero();
    }
    assertThat(index.heldBlocks()).isZero();
    assertThat(index.heldBlocksExact()).isZero();
    assertThat(index.distinctBlocks()).as("the shared table is empty").isZero();
  }

  // ------------------------------------------------------------------ corpora

  /**
   * The upstream fixtures plus, per worker, a stream of realistic batches: chained stores at the
   * page size (parents the worker stored before), removes of held blocks, a rare clear, each
   * encoded in a random wire shape (vLLM arrays, SGLang-style maps, int or byte hashes).
   */
  private List<byte[]> eventCorpus(Random r) {
    List<byte[]> out = new ArrayList<>();
    for (String name : Fixtures.valid()) {
      out.add(Fixtures.payload(name));
    }
    for (String name : Fixtures.malformed()) {
      out.add(Fixtures.payload(name));
    }
    for (int w = 0; w < WORKERS; w++) {
      ArrayDeque<long[]> held = new ArrayDeque<>();
      long next = 1 + w * 1_000_000L;
      for (int b = 0; b < 800; b++) {
        List<KvEvent> evs = new ArrayList<>();
        int n = 1 + r.nextInt(3);
        for (int e = 0; e < n; e++) {
          int pick = r.nextInt(20);
          if (pick == 0) {
            evs.add(new AllBlocksCleared());
            held.clear();
          } else if (pick < 6 && !held.isEmpty()) {
            evs.add(new BlockRemoved(held.poll(), r.nextBoolean() ? null : "GPU", null));
          } else {
            int blocks = 1 + r.nextInt(r.nextInt(10) == 0 ? 64 : 6);
            long[] hashes = new long[blocks];
            for (int i = 0; i < blocks; i++) {
              hashes[i] = next++;
            }
            Long parent = held.isEmpty() || r.nextBoolean() ? null : held.peekLast()[0];
            int[] tokens = r.ints(blocks * PAGE, 0, 150_000).toArray();
            evs.add(
                new BlockStored(hashes, parent, tokens, PAGE, null, null, null, null, null, null));
            held.add(hashes);
          }
        }
        out.add(EventModel.encode(new EventBatch(b, evs, null, 0), r));
      }
    }
    for (int i = 0; i < 300; i++) {
      out.add(EventModel.random(r).payload());
    }
    return out;
  }

  private static List<byte[]> snapshotCorpus(Random r) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int n = r.nextInt(20) == 0 ? 3_500 : r.nextInt(200);
      long[] routers = r.longs(n).toArray();
      long[] engines = r.longs(n).toArray();
      if (n > 0 && r.nextBoolean()) {
        engines[n - 1] = engines[0]; // a second reference
      }
      int size = r.nextInt(5) == 0 ? 1 + r.nextInt(64) : PAGE;
      out.add(
          ViewSnapshot.of(size, r.nextInt(3) == 0 ? -1 : r.nextInt(100), i, routers, engines)
              .encode());
    }
    return out;
  }

  private List<byte[]> loadCorpus(Random r) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      long replica = r.nextInt(4) == 0 ? r.nextLong() : r.nextInt(8);
      List<SharedLoadMessage.Entry> entries = new ArrayList<>();
      int n = r.nextInt(6);
      for (int e = 0; e < n; e++) {
        WorkerId w =
            r.nextInt(4) == 0
                ? WorkerId.of("forged-" + r.nextInt(1000))
                : workers.get(r.nextInt(WORKERS));
        boolean pick = r.nextBoolean();
        long active = r.nextInt(5) == 0 ? Long.MAX_VALUE : r.nextInt(100_000);
        int inFlight = r.nextInt(5) == 0 ? Integer.MAX_VALUE : r.nextInt(500);
        entries.add(
            new SharedLoadMessage.Entry(
                w, r.nextInt(1_000_000), active, inFlight, pick, pick ? r.nextDouble() * 1e9 : 0));
      }
      SharedLoadMessage m =
          switch (r.nextInt(4)) {
            case 0 -> new SharedLoadMessage.Bye(replica);
            case 1 ->
                new SharedLoadMessage.Heartbeat(
                    replica,
                    r.nextInt(1_000_000),
                    entries.stream()
                        .map(
                            e ->
                                new SharedLoadMessage.Entry(
                                    e.worker(), e.seq(), e.activeBlocks(), e.inFlight(), false, 0))
                        .toList());
            default ->
                entries.isEmpty()
                    ? new SharedLoadMessage.Bye(replica)
                    : new SharedLoadMessage.Update(replica, entries);
          };
      out.add(SharedLoadCodec.encode(m));
    }
    return out;
  }

  // ------------------------------------------------------------------ mutation

  private static byte[] mutate(byte[] seed, byte[] other, Random r) {
    byte[] b = seed.clone();
    int edits = 1 + r.nextInt(3);
    for (int e = 0; e < edits && b.length > 0; e++) {
      int at = r.nextInt(b.length);
      switch (r.nextInt(9)) {
        case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
        case 1 -> b[at] = INTERESTING[r.nextInt(INTERESTING.length)];
        case 2 -> b = Arrays.copyOf(b, at);
        case 3 -> {
          // Length inflation: a 32-bit (array, map, string, bin) or 16-bit header, all ones.
          byte[] heads = {(byte) 0xdd, (byte) 0xdf, (byte) 0xdb, (byte) 0xc6, (byte) 0xdc};
          b[at] = heads[r.nextInt(heads.length)];
          for (int i = 1; i <= 4 && at + i < b.length; i++) {
            b[at + i] = (byte) (r.nextBoolean() ? 0xff : 0x7f);
          }
        }
        case 4 -> b = typeConfusion(b, at, r);
        case 5 -> {
          byte[] grown = new byte[b.length + 1];
          System.arraycopy(b, 0, grown, 0, at);
          grown[at] = (byte) r.nextInt(256);
          System.arraycopy(b, at, grown, at + 1, b.length - at);
          b = grown;
        }
        case 6 -> {
          // Duplicate a run of bytes (repeats a field or an element).
          int from = r.nextInt(b.length);
          int len = Math.min(b.length - from, 1 + r.nextInt(32));
          byte[] grown = new byte[b.length + len];
          System.arraycopy(b, 0, grown, 0, at);
          System.arraycopy(b, from, grown, at, len);
          System.arraycopy(b, at, grown, at + len, b.length - at);
          b = grown;
        }
        case 7 -> {
          // Splice: this input's head, another's tail.
          int cut = other.length == 0 ? 0 : r.nextInt(other.length);
          byte[] grown = Arrays.copyOf(b, at + other.length - cut);
          System.arraycopy(other, cut, grown, at, other.length - cut);
          b = grown;
        }
        default -> b[at] = 0;
      }
    }
    return b;
  }

  /** Replaces a value's type byte by one of another family, keeping its small payload bits. */
  private static byte[] typeConfusion(byte[] b, int at, Random r) {
    int v = b[at] & 0xff;
    int low = v & 0x0f;
    int[] families = {0x80, 0x90, 0xa0, 0x00, 0xe0};
    int f = families[r.nextInt(families.length)];
    b[at] = (byte) (f == 0xa0 ? 0xa0 | (v & 0x1f) : f | low);
    return b;
  }

  private static Map<DropReason, Long> nonZero(Map<DropReason, Long> drops) {
    Map<DropReason, Long> out = new EnumMap<>(DropReason.class);
    drops.forEach(
        (k, v) -> {
          if (v > 0) {
            out.put(k, v);
          }
        });
    return out;
  }
}
