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
 * Decoding 8 BlockStored events, each 8 blocks of 16 tokens with u64 hashes (the common
 * steady-state payload): {@code decode} as a map batch of map events, {@code decodeVllm033} as vLLM
 * 0.33.0 sends it (an array batch of map events with group, spec kind and a salted first event's
 * untagged extra keys), {@code decodeAtom} as ATOM sends it (an array batch of array events with
 * every trailing field present, a nil rank; docs/atom.md). Score: blocks decoded per microsecond.
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
  byte[] vllm033;
  byte[] atom;

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
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3).packDouble(1.0).packArrayHeader(EVENTS);
      for (int e = 0; e < EVENTS; e++) {
        p.packMapHeader(e == 0 ? 11 : 10).packString("type").packString("BlockStored");
        p.packString("block_hashes").packArrayHeader(BLOCKS);
        for (int b = 0; b < BLOCKS; b++) {
          p.packBigInteger(new java.math.BigInteger(Long.toUnsignedString(r.nextLong())));
        }
        p.packString("parent_block_hash");
        if (e == 0) {
          p.packNil();
        } else {
          p.packLong(r.nextLong());
        }
        p.packString("token_ids").packArrayHeader(BLOCKS * 16);
        for (int t = 0; t < BLOCKS * 16; t++) {
          p.packInt(r.nextInt(150_000));
        }
        p.packString("block_size").packInt(16);
        p.packString("lora_id").packNil();
        p.packString("medium").packString("GPU");
        p.packString("lora_name").packNil();
        if (e == 0) {
          p.packString("extra_keys").packArrayHeader(BLOCKS);
          p.packArrayHeader(1).packString("tenant-a");
          for (int b = 1; b < BLOCKS; b++) {
            p.packNil();
          }
        }
        p.packString("group_idx").packInt(0);
        p.packString("kv_cache_spec_kind").packString("full_attention");
      }
      p.packInt(0);
      vllm033 = p.toByteArray();
    }
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3).packDouble(1.0).packArrayHeader(EVENTS);
      for (int e = 0; e < EVENTS; e++) {
        p.packArrayHeader(12).packString("BlockStored").packArrayHeader(BLOCKS);
        for (int b = 0; b < BLOCKS; b++) {
          p.packBigInteger(new java.math.BigInteger(Long.toUnsignedString(r.nextLong())));
        }
        if (e == 0) {
          p.packNil();
        } else {
          p.packBigInteger(new java.math.BigInteger(Long.toUnsignedString(r.nextLong())));
        }
        p.packArrayHeader(BLOCKS * 16);
        for (int t = 0; t < BLOCKS * 16; t++) {
          p.packInt(r.nextInt(150_000));
        }
        p.packInt(16).packNil().packString("GPU");
        for (int i = 0; i < 5; i++) {
          p.packNil();
        }
      }
      p.packNil();
      atom = p.toByteArray();
    }
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS * BLOCKS)
  public EventBatch decode() throws EventDecodeException {
    return KvEventDecoder.decode(payload);
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS * BLOCKS)
  public EventBatch decodeVllm033() throws EventDecodeException {
    return KvEventDecoder.decode(vllm033);
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS * BLOCKS)
  public EventBatch decodeAtom() throws EventDecodeException {
    return KvEventDecoder.decode(atom);
  }
}
