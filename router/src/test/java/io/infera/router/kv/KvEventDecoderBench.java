package io.infera.router.kv;

import java.io.IOException;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding a vLLM 2026 map batch of 8 BlockStored events, each 8 blocks of 16 tokens with u64
 * hashes (the common steady-state payload). Score: blocks decoded per microsecond.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class KvEventDecoderBench {

  static final int EVENTS = 8;
  static final int BLOCKS = 8;

  byte[] payload;

  @Setup
  public void setup() throws IOException {
    Random r = new Random(3);
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packMapHeader(3).packString("ts").packDouble(1.0).packString("events");
      p.packArrayHeader(EVENTS);
      for (int e = 0; e < EVENTS; e++) {
        p.packMapHeader(8).packString("type").packString("BlockStored");
        p.packString("block_hashes").packArrayHeader(BLOCKS);
        for (int b = 0; b < BLOCKS; b++) {
          p.packBigInteger(new java.math.BigInteger(Long.toUnsignedString(r.nextLong())));
        }
        p.packString("parent_block_hash").packLong(r.nextLong());
        p.packString("token_ids").packArrayHeader(BLOCKS * 16);
        for (int t = 0; t < BLOCKS * 16; t++) {
          p.packInt(r.nextInt(150_000));
        }
        p.packString("block_size").packInt(16);
        p.packString("lora_id").packNil();
        p.packString("medium").packString("GPU");
        p.packString("lora_name").packNil();
      }
      p.packString("data_parallel_rank").packInt(0);
      payload = p.toByteArray();
    }
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS * BLOCKS)
  public EventBatch decode() throws EventDecodeException {
    return KvEventDecoder.decode(payload);
  }
}
