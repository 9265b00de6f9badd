package io.infera.router.kv;

import io.infera.router.kv.KvEvent.AllBlocksCleared;
import io.infera.router.kv.KvEvent.BlockRemoved;
import io.infera.router.kv.KvEvent.BlockStored;
import java.util.List;
import java.util.stream.IntStream;

/** Test builders for events and batches. */
public final class Events {

  private Events() {}

  public static BlockStored stored(int blockSize, long[] engine, Long parent, int[] tokens) {
    return new BlockStored(engine, parent, tokens, blockSize, null, null, null, null, null, null);
  }

  public static BlockStored storedLora(
      int blockSize, long[] engine, Long parent, int[] tokens, String lora, String salt) {
    return new BlockStored(engine, parent, tokens, blockSize, null, lora, null, null, null, salt);
  }

  public static BlockStored storedOn(
      int blockSize, long[] engine, int[] tokens, String medium, Integer group, String kind) {
    return new BlockStored(engine, null, tokens, blockSize, null, null, medium, group, kind, null);
  }

  public static BlockRemoved removed(long... engine) {
    return new BlockRemoved(engine, null, null);
  }

  public static AllBlocksCleared cleared() {
    return new AllBlocksCleared();
  }

  public static EventBatch batch(KvEvent... events) {
    return new EventBatch(0, List.of(events), null, 0);
  }

  public static EventBatch batch(int rank, KvEvent... events) {
    return new EventBatch(0, List.of(events), rank, 0);
  }

  /** Tokens {@code from, from+1, …} of length n. */
  public static int[] range(int from, int n) {
    return IntStream.range(from, from + n).toArray();
  }

  public static long[] longs(long... v) {
    return v;
  }
}
