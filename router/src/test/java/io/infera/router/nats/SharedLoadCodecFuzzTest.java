package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes the load-message decoder with random and mutated messages (≥ 100,000 per run): nothing but
 * {@link SharedLoadCodec.MalformedException} may escape, what decodes re-encodes to the same bytes,
 * and every input finishes (the timeout catches a hang).
 */
class SharedLoadCodecFuzzTest {

  private static final int RUNS = 150_000;

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void randomAndMutatedMessagesNeverEscapeTheDecoder() {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    Random r = new Random(seed);
    List<byte[]> corpus = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      corpus.add(SharedLoadCodec.encode(SharedLoadMessages.random(r)));
    }
    int ok = 0;
    Map<SharedLoadCodec.MalformedException.Kind, Integer> failures =
        new EnumMap<>(SharedLoadCodec.MalformedException.Kind.class);
    for (int run = 0; run < RUNS; run++) {
      byte[] input =
          run % 10 == 0 ? randomBytes(r) : mutate(corpus.get(r.nextInt(corpus.size())), r);
      try {
        SharedLoadMessage m = SharedLoadCodec.decode(input);
        assertThat(SharedLoadCodec.encode(m)).as("seed %d run %d", seed, run).isEqualTo(input);
        ok++;
      } catch (SharedLoadCodec.MalformedException e) {
        failures.merge(e.kind(), 1, Integer::sum);
      } catch (RuntimeException e) {
        throw new AssertionError("seed " + seed + " run " + run + ": " + e, e);
      }
    }
    // Both outcomes must be exercised, or the fuzzer is not reaching the decoder's depths.
    assertThat(ok).as("seed %d", seed).isPositive();
    assertThat(failures.keySet())
        .as("seed %d", seed)
        .contains(
            SharedLoadCodec.MalformedException.Kind.TRUNCATED,
            SharedLoadCodec.MalformedException.Kind.INVALID,
            SharedLoadCodec.MalformedException.Kind.TRAILING_BYTES);
  }

  private static byte[] randomBytes(Random r) {
    byte[] b = new byte[r.nextInt(64)];
    r.nextBytes(b);
    if (b.length >= 4 && r.nextBoolean()) {
      b[0] = 'I';
      b[1] = 'L';
      b[2] = 1;
      b[3] = (byte) (1 + r.nextInt(3));
    }
    return b;
  }

  private static byte[] mutate(byte[] in, Random r) {
    byte[] b = in.clone();
    switch (r.nextInt(5)) {
      case 0 -> b[r.nextInt(b.length)] = (byte) r.nextInt(256);
      case 1 -> b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
      case 2 -> b = java.util.Arrays.copyOf(b, r.nextInt(b.length + 1));
      case 3 -> {
        b = java.util.Arrays.copyOf(b, b.length + 1 + r.nextInt(8));
        for (int i = in.length; i < b.length; i++) {
          b[i] = (byte) r.nextInt(256);
        }
      }
      default -> {
        // A length or count field set to something extreme.
        int at = r.nextInt(Math.max(1, b.length - 1));
        b[at] = (byte) 0xff;
        if (at + 1 < b.length) {
          b[at + 1] = (byte) 0xff;
        }
      }
    }
    return b;
  }
}
