package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzzes the decoder with random and mutated payloads (≥ 100,000 per run): nothing but {@link
 * EventDecodeException} may escape, and every input must finish (the timeout catches a hang).
 */
class KvEventDecoderFuzzTest {

  private static final int RUNS = 120_000;
  private static final byte[] INTERESTING = {
    (byte) 0xdd,
    (byte) 0xdb,
    (byte) 0xdf,
    (byte) 0xc6,
    (byte) 0xc9,
    (byte) 0xc1,
    (byte) 0xcf,
    (byte) 0xd3,
    (byte) 0xff,
    0x00,
    0x7f,
    (byte) 0x80,
    (byte) 0x90,
    (byte) 0x9f,
    (byte) 0xc0
  };

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void randomAndMutatedPayloadsNeverEscapeTheDecoder() {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    Random r = new Random(seed);
    List<byte[]> corpus = new ArrayList<>();
    for (String name : Fixtures.valid()) {
      corpus.add(Fixtures.payload(name));
    }
    for (String name : Fixtures.malformed()) {
      corpus.add(Fixtures.payload(name));
    }
    for (int i = 0; i < 200; i++) {
      corpus.add(EventModel.random(r).payload());
    }
    int ok = 0;
    int failed = 0;
    for (int run = 0; run < RUNS; run++) {
      byte[] input =
          run % 10 == 0 ? randomBytes(r) : mutate(corpus.get(r.nextInt(corpus.size())), r);
      try {
        KvEventDecoder.decode(input);
        ok++;
      } catch (EventDecodeException e) {
        failed++;
      } catch (Throwable t) {
        throw new AssertionError(
            "decoder escaped with "
                + t
                + " (seed "
                + seed
                + ", run "
                + run
                + ") on "
                + HexFormat.of().formatHex(input),
            t);
      }
    }
    assertThat(ok + failed).isEqualTo(RUNS);
    // Both paths must be exercised, or the mutator is broken.
    assertThat(ok).as("decoded").isGreaterThan(RUNS / 100);
    assertThat(failed).as("rejected").isGreaterThan(RUNS / 10);
  }

  private static byte[] randomBytes(Random r) {
    byte[] b = new byte[r.nextInt(64)];
    r.nextBytes(b);
    return b;
  }

  private static byte[] mutate(byte[] seed, Random r) {
    byte[] b = seed.clone();
    int edits = 1 + r.nextInt(3);
    for (int e = 0; e < edits && b.length > 0; e++) {
      int at = r.nextInt(b.length);
      switch (r.nextInt(7)) {
        case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
        case 1 -> b[at] = INTERESTING[r.nextInt(INTERESTING.length)];
        case 2 -> b = java.util.Arrays.copyOf(b, at);
        case 3 -> {
          // Inflate a length: a 32-bit header followed by 0xff bytes.
          b[at] = (byte) 0xdd;
          for (int i = 1; i <= 4 && at + i < b.length; i++) {
            b[at + i] = (byte) 0xff;
          }
        }
        case 4 -> {
          byte[] grown = new byte[b.length + 1];
          System.arraycopy(b, 0, grown, 0, at);
          grown[at] = (byte) r.nextInt(256);
          System.arraycopy(b, at, grown, at + 1, b.length - at);
          b = grown;
        }
        case 5 -> {
          int from = r.nextInt(b.length);
          int len = Math.min(b.length - from, 1 + r.nextInt(16));
          byte[] grown = new byte[b.length + len];
          System.arraycopy(b, 0, grown, 0, at);
          System.arraycopy(b, from, grown, at, len);
          System.arraycopy(b, at, grown, at + len, b.length - at);
          b = grown;
        }
        default -> b[at] = 0;
      }
    }
    return b;
  }
}
