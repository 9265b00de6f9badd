package io.infera.router.relay;

import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.EventDecodeException;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import io.infera.router.kv.KvEventDecoder;
import io.infera.router.kv.KvEventMessage;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.ViewSnapshot;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.NatsHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A deterministic engine for relay tests: batch i stores block {@code 1000 + i} chained to the
 * previous one (a new chain every 8 batches) and every 5th batch also removes an older block, so
 * the view depends on every batch and on their order.
 */
final class EngineScript {

  final int blockSize;
  private final double ts;

  EngineScript(int blockSize) {
    this(blockSize, 1_700_000_000.0);
  }

  /**
   * @param epoch the engine's start time: another epoch is another engine run (same events, other
   *     payload bytes)
   */
  EngineScript(int blockSize, double epoch) {
    this.blockSize = blockSize;
    this.ts = epoch;
  }

  /** The events of batch {@code i}. */
  KvEvent[] events(long i) {
    long hash = 1000 + i;
    Long parent = i % 8 == 0 ? null : 1000 + i - 1;
    int[] tokens = new int[blockSize];
    for (int t = 0; t < blockSize; t++) {
      tokens[t] = (int) (i * blockSize + t);
    }
    BlockStored stored =
        new BlockStored(
            new long[] {hash}, parent, tokens, blockSize, null, null, null, null, null, null);
    if (i % 5 == 4 && i >= 6) {
      return new KvEvent[] {stored, new BlockRemoved(new long[] {1000 + i - 6}, null, null)};
    }
    return new KvEvent[] {stored};
  }

  /** The payload of batch {@code i} as vLLM sends it (rank {@code dpRank}). */
  byte[] payload(long i, int dpRank) {
    return FakeVllmPublisher.batchPayload(ts + i / 1000.0, dpRank, events(i));
  }

  /** The three frames of batch {@code i}. */
  List<byte[]> frames(long i, int dpRank) {
    return List.of("kv-events".getBytes(), KvEventMessage.seqBytes(i), payload(i, dpRank));
  }

  /** The view batches {@code 0..n-1} give (rank 0). */
  PrefixIndex truth(WorkerId worker, long n) throws EventDecodeException {
    PrefixIndex index = new PrefixIndex(blockSize);
    for (long i = 0; i < n; i++) {
      apply(index, worker, 0, i, payload(i, 0));
    }
    return index;
  }

  static void apply(PrefixIndex index, WorkerId worker, int rank, long seq, byte[] payload)
      throws EventDecodeException {
    EventBatch b = KvEventDecoder.decode(payload);
    index.apply(worker, seq, b.withRank(rank));
  }

  /**
   * What a router gets: the snapshot seeded, then the subject's messages after its watermark
   * applied in stream order (markers skipped). Each message: (stream seq, headers, payload).
   */
  static PrefixIndex replay(
      WorkerId worker, int rank, ViewSnapshot snapshot, List<Stored> subjectMessages, int bs)
      throws EventDecodeException {
    PrefixIndex index = new PrefixIndex(bs);
    SourceId src = new SourceId(worker, rank);
    if (snapshot != null) {
      index.seed(src, snapshot);
    }
    long w = snapshot == null ? 0 : snapshot.streamSeq();
    for (Stored m : subjectMessages) {
      if (m.streamSeq() <= w || m.headers().containsKey(NatsHeaders.RESYNC)) {
        continue;
      }
      apply(index, worker, rank, RelayMessages.engineSeq(toClient(m)), m.payload());
    }
    return index;
  }

  /** A stored message in test form. */
  record Stored(long streamSeq, Map<String, String> headers, byte[] payload) {}

  static StreamClient.Stored toClient(Stored m) {
    return new StreamClient.Stored(m.streamSeq(), m.headers(), m.payload());
  }

  static List<Stored> of(List<FakeStreamClient.Msg> msgs) {
    List<Stored> out = new ArrayList<>();
    for (FakeStreamClient.Msg m : msgs) {
      out.add(new Stored(m.seq(), m.headers(), m.payload()));
    }
    return out;
  }
}
