package io.infera.router.kv;

import static io.infera.router.kv.Events.batch;
import static io.infera.router.kv.Events.longs;
import static io.infera.router.kv.Events.range;
import static io.infera.router.kv.Events.stored;
import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * ATOM's KV events (docs/atom.md). The fixture {@code golden/events/atom-array.msgpack} is written
 * by make_fixtures.py in ATOM's recorded shape: the bytes equal what msgspec 0.23.0 encodes from
 * ATOM's own struct layout (ROCm/ATOM ffdf3bb5, atom/distributed/kv_events.py: array_like structs
 * that encode every trailing field, a nil rank, the REMOTE medium, an AllBlocksCleared medium slot
 * and the BlockTransferred event). No ATOM engine ran: ATOM needs ROCm GPUs and is not on PyPI.
 */
class AtomEventsTest {

  private static final int P = 4;
  private static final WorkerId W = WorkerId.of("atom-0");

  @Test
  void theRecordedBatchDecodesWithEveryAtomShape() throws Exception {
    EventBatch b = KvEventDecoder.decode(Fixtures.payload("atom-array"));
    assertThat(b.dpRank()).isNull();
    assertThat(b.skipped().total()).isZero();
    List<KvEvent> e = b.events();
    assertThat(e).hasSize(6);
    BlockStored gpu = (BlockStored) e.get(0);
    assertThat(gpu.blockHashes()).containsExactly(0xF000000000000001L, 0x2222222222222222L);
    assertThat(gpu.medium()).isEqualTo("GPU");
    assertThat(gpu.loraName()).isNull();
    assertThat(gpu.kvCacheSpecKind()).isNull();
    assertThat(((BlockStored) e.get(1)).medium()).isEqualTo("REMOTE");
    assertThat(e.get(2)).isEqualTo(new BlockRemoved(longs(0x3333333333333333L), "GPU", null));
    // BlockTransferred GPU -> CPU: a removal from the GPU tier.
    assertThat(e.get(3)).isEqualTo(new BlockRemoved(longs(0x1111111111111111L), "GPU", null));
    assertThat(e.get(4)).isEqualTo(new AllBlocksCleared("CPU"));
    assertThat(e.get(5)).isEqualTo(new AllBlocksCleared());
  }

  @Test
  void appliedToTheIndexOnlyTheDeviceTierCounts() throws Exception {
    PrefixIndex index = new PrefixIndex(P);
    EventBatch b = KvEventDecoder.decode(Fixtures.payload("atom-array"));
    // Apply all but the final whole-cache clear, to see what survives the tier clear.
    index.apply(
        W, KvEventMessage.NO_SEQ, new EventBatch(b.ts(), b.events().subList(0, 5), null, 0));
    long[] request = new BlockHasher(P).requestHashes(new int[] {1, 2, 3, 4, 5, 6, 7, 8}, 0);
    assertThat(index.match(request).hits(W)).isEqualTo(2);
    // The REMOTE store is a lower tier to the router; so is the CPU clear (the view stays).
    assertThat(index.dropped(W, DropReason.LOWER_TIER)).isEqualTo(2);
    // Its later GPU removal names a block the view never held.
    assertThat(index.dropped(W, DropReason.UNKNOWN_BLOCK_REMOVED)).isEqualTo(2);
    index.apply(
        W, KvEventMessage.NO_SEQ, new EventBatch(b.ts(), b.events().subList(5, 6), null, 0));
    assertThat(index.match(request).hits(W)).isZero();
  }

  @Test
  void aTransferOutOfTheGpuRemovesTheBlocksFromTheView() throws Exception {
    PrefixIndex index = new PrefixIndex(P);
    index.apply(W, KvEventMessage.NO_SEQ, batch(stored(P, longs(7, 8), null, range(1, 8))));
    long[] request = new BlockHasher(P).requestHashes(range(1, 8), 0);
    assertThat(index.match(request).hits(W)).isEqualTo(2);
    byte[] moved = atomBatch(List.of(new Transferred(longs(8), "GPU", "DISK")), null);
    index.apply(W, KvEventMessage.NO_SEQ, KvEventDecoder.decode(moved));
    assertThat(index.match(request).hits(W)).isEqualTo(1);
    // A move back into the GPU has no token ids: it is read as a removal from the lower tier.
    byte[] back = atomBatch(List.of(new Transferred(longs(8), "DISK", "GPU")), null);
    index.apply(W, KvEventMessage.NO_SEQ, KvEventDecoder.decode(back));
    assertThat(index.match(request).hits(W)).isEqualTo(1);
    assertThat(index.dropped(W, DropReason.LOWER_TIER)).isEqualTo(1);
  }

  @Test
  void mapShapedTransfersAndClearsAreReadToo() throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(2).packDouble(1.0).packArrayHeader(2);
    p.packMapHeader(4);
    p.packString("type").packString("BlockTransferred");
    p.packString("block_hashes").packArrayHeader(1).packLong(5);
    p.packString("from_medium").packString("GPU");
    p.packString("to_medium").packString("CPU");
    p.packMapHeader(2).packString("type").packString("AllBlocksCleared");
    p.packString("medium").packString("DISK");
    EventBatch b = KvEventDecoder.decode(p.toByteArray());
    assertThat(b.events())
        .containsExactly(new BlockRemoved(longs(5), "GPU", null), new AllBlocksCleared("DISK"));
  }

  @Test
  void aShortTransferIsOneMalformedEventAndTheBatchIsKept() throws Exception {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(2).packDouble(1.0).packArrayHeader(3);
    p.packArrayHeader(3).packString("BlockTransferred").packArrayHeader(0).packString("GPU");
    p.packArrayHeader(2).packString("BlockTransferred").packString("not hashes");
    p.packArrayHeader(2).packString("AllBlocksCleared").packNil();
    EventBatch b = KvEventDecoder.decode(p.toByteArray());
    assertThat(b.events()).containsExactly(new AllBlocksCleared());
    assertThat(b.skipped().malformed()).isEqualTo(2);
  }

  // ------------------------------------------------------------------ property

  /** One ATOM event to encode. */
  private sealed interface AtomEvent permits Stored, Removed, Cleared, Transferred {}

  private record Stored(long[] hashes, Long parent, int[] tokens, String medium)
      implements AtomEvent {}

  private record Removed(long[] hashes, String medium) implements AtomEvent {}

  private record Cleared(String medium) implements AtomEvent {}

  private record Transferred(long[] hashes, String from, String to) implements AtomEvent {}

  @Provide
  Arbitrary<List<AtomEvent>> atomEvents() {
    Arbitrary<long[]> hashes = Arbitraries.longs().array(long[].class).ofMinSize(1).ofMaxSize(4);
    Arbitrary<String> medium = Arbitraries.of("GPU", "CPU", "DISK", "REMOTE");
    Arbitrary<AtomEvent> stored =
        Combinators.combine(hashes, Arbitraries.longs().injectNull(0.5), medium)
            .as(
                (h, parent, m) -> {
                  int[] tokens = new int[h.length * P];
                  for (int i = 0; i < tokens.length; i++) {
                    tokens[i] = (int) (h[0] >>> (i % 32)) & 0xffff;
                  }
                  return new Stored(h, parent, tokens, m);
                });
    Arbitrary<AtomEvent> removed = Combinators.combine(hashes, medium).as(Removed::new);
    Arbitrary<AtomEvent> cleared = medium.injectNull(0.5).map(Cleared::new);
    Arbitrary<AtomEvent> moved = Combinators.combine(hashes, medium, medium).as(Transferred::new);
    return Arbitraries.oneOf(stored, removed, cleared, moved).list().ofMaxSize(8);
  }

  @Property(tries = 1000)
  void everyAtomShapedBatchDecodesToItsEvents(
      @ForAll("atomEvents") List<AtomEvent> events, @ForAll("ranks") Integer rank)
      throws Exception {
    EventBatch b = KvEventDecoder.decode(atomBatch(events, rank));
    assertThat(b.dpRank()).isEqualTo(rank);
    assertThat(b.skipped().total()).isZero();
    List<KvEvent> want = new ArrayList<>();
    for (AtomEvent e : events) {
      want.add(expected(e));
    }
    assertThat(b.events()).isEqualTo(want);
  }

  @Provide
  Arbitrary<Integer> ranks() {
    return Arbitraries.integers().between(0, 7).injectNull(0.5);
  }

  private static KvEvent expected(AtomEvent e) {
    if (e instanceof Stored s) {
      return new BlockStored(
          s.hashes(), s.parent(), s.tokens(), P, null, null, s.medium(), null, null, null);
    } else if (e instanceof Removed r) {
      return new BlockRemoved(r.hashes(), r.medium(), null);
    } else if (e instanceof Cleared c) {
      return new AllBlocksCleared(c.medium());
    }
    Transferred t = (Transferred) e;
    return new BlockRemoved(t.hashes(), t.from(), null);
  }

  /**
   * A batch as ATOM's msgspec structs encode it: every field present (trailing nils), hashes as
   * u64, the rank slot always there.
   */
  private static byte[] atomBatch(List<AtomEvent> events, Integer rank) throws IOException {
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    p.packArrayHeader(3).packDouble(1764500002.0).packArrayHeader(events.size());
    for (AtomEvent e : events) {
      if (e instanceof Stored s) {
        p.packArrayHeader(12).packString("BlockStored");
        hashes(p, s.hashes());
        if (s.parent() == null) {
          p.packNil();
        } else {
          u64(p, s.parent());
        }
        p.packArrayHeader(s.tokens().length);
        for (int t : s.tokens()) {
          p.packInt(t);
        }
        p.packInt(P).packNil().packString(s.medium());
        for (int i = 0; i < 5; i++) {
          p.packNil();
        }
      } else if (e instanceof Removed r) {
        p.packArrayHeader(4).packString("BlockRemoved");
        hashes(p, r.hashes());
        p.packString(r.medium()).packNil();
      } else if (e instanceof Cleared c) {
        p.packArrayHeader(2).packString("AllBlocksCleared");
        if (c.medium() == null) {
          p.packNil();
        } else {
          p.packString(c.medium());
        }
      } else {
        Transferred t = (Transferred) e;
        p.packArrayHeader(5).packString("BlockTransferred");
        hashes(p, t.hashes());
        p.packString(t.from()).packString(t.to()).packNil();
      }
    }
    if (rank == null) {
      p.packNil();
    } else {
      p.packInt(rank);
    }
    return p.toByteArray();
  }

  private static void hashes(MessageBufferPacker p, long[] hashes) throws IOException {
    p.packArrayHeader(hashes.length);
    for (long h : hashes) {
      u64(p, h);
    }
  }

  /** ATOM's hashes are xxh64 digests, unsigned: msgspec packs them as uint64. */
  private static void u64(MessageBufferPacker p, long h) throws IOException {
    p.packBigInteger(new java.math.BigInteger(Long.toUnsignedString(h)));
  }
}
