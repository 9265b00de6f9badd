package io.infera.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import io.infera.router.routing.RequestAnalyzer.Endpoint;
import io.infera.router.routing.RequestAnalyzer.Result;
import io.infera.router.tokenize.TestTokenizers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Request bodies are outside input: a seeded fuzz run of {@value #BODIES} bodies mutated from valid
 * OpenAI chat and completion requests (byte flips, insertions, truncation, splices, type confusion,
 * long strings, deep nesting, broken UTF-8) through the whole analysis (JSON, the chat's
 * normalization, the template, the tokenizer, the block hashes). Every body gives a result: routed
 * (possibly by load, with the reason) or a client error (400/404); no exception escapes, and the
 * heap retained afterwards is bounded.
 */
class RequestBodyFuzzTest {

  static final int BODIES = 100_000;
  private static final long SEED = Long.getLong("infera.fuzz.seed", 0x1A7E5EEDL);

  private static final List<String> SEEDS =
      List.of(
          "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello there, how are you?\"}]}",
          "{\"model\":\"m\",\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":8,"
              + "\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
              + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is in\"},"
              + "{\"type\":\"text\",\"text\":\" this list?\"}]},"
              + "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"c1\",\"type\":\"function\","
              + "\"function\":{\"name\":\"get\",\"arguments\":\"{\\\"q\\\":1}\"}}]},"
              + "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"42\"},"
              + "{\"role\":\"user\",\"content\":\"and then?\"}],"
              + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get\",\"description\":\"d\","
              + "\"parameters\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"integer\"}}}}}],"
              + "\"chat_template_kwargs\":{\"enable_thinking\":false},\"cache_salt\":\"tenant-a\"}",
          "{\"model\":\"sql\",\"add_generation_prompt\":false,\"continue_final_message\":true,"
              + "\"messages\":[{\"role\":\"user\",\"content\":\"SELECT\"},"
              + "{\"role\":\"assistant\",\"content\":\"SELECT * FROM\"}],\"documents\":[{\"title\":\"t\",\"text\":\"x\"}]}",
          "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"chat_template\":"
              + "\"{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\\n{% endfor %}"
              + "{% if add_generation_prompt %}<|assistant|>{% endif %}\"}",
          "{\"model\":\"m\",\"prompt\":\"Once upon a time, in a land far away,\",\"max_tokens\":16}",
          "{\"model\":\"m\",\"prompt\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18],\"max_tokens\":1}",
          "{\"model\":\"m\",\"prompt\":[\"a\",\"b\"],\"max_tokens\":1}",
          "{\"prompt\":[[1,2],[3]],\"cache_salt\":\"s\"}");

  private static final RouterConfig CFG;

  static {
    try {
      CFG =
          ConfigLoader.parse(
              "model: m\nloraAdapters: [sql]\ntokenizer: {path: 'builtin:qwen3'}\n"
                  + "discovery: {workers: [{id: w, url: 'http://x:1'}]}\n");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void mutatedBodiesAreRoutedOrClientErrorsAndNothingEscapes() {
    RoutingMetrics metrics = new RoutingMetrics();
    RequestAnalyzer analyzer =
        new RequestAnalyzer(CFG, TestTokenizers.qwen3(), metrics, () -> new int[] {64});
    Random rng = new Random(SEED);
    Map<String, Integer> outcomes = new TreeMap<>();
    long heapBefore = usedHeapAfterGc();
    java.lang.management.ThreadMXBean cpu =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long cpu0 = cpu.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    long bytes = 0;
    for (int i = 0; i < BODIES; i++) {
      byte[] body = mutate(rng, SEEDS.get(rng.nextInt(SEEDS.size())));
      bytes += body.length;
      Endpoint endpoint = rng.nextInt(4) == 0 ? Endpoint.COMPLETIONS : Endpoint.CHAT;
      if (new String(body, StandardCharsets.UTF_8).contains("\"prompt\"") && rng.nextBoolean()) {
        endpoint = Endpoint.COMPLETIONS;
      }
      Result r;
      try {
        r = analyzer.analyze(body, endpoint);
      } catch (RuntimeException | StackOverflowError e) {
        throw new AssertionError("body #" + i + " (seed " + SEED + ") escaped: " + abbrev(body), e);
      }
      String outcome;
      if (r instanceof Result.Ok ok) {
        String why = ok.analyzed().tokenizeFailure();
        outcome = why == null ? "routed" : "routed by load (" + why + ")";
      } else {
        RoutingFailure f = ((Result.Failed) r).failure();
        assertThat(f.kind())
            .as("body #%d: %s", i, abbrev(body))
            .isIn(RoutingFailure.Kind.BAD_REQUEST, RoutingFailure.Kind.UNKNOWN_MODEL);
        outcome = f.kind().name();
      }
      outcomes.merge(outcome, 1, Integer::sum);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    double cpuSeconds = (cpu.getCurrentThreadCpuTime() - cpu0) / 1e9;
    long heapGrowth = usedHeapAfterGc() - heapBefore;
    System.out.printf(
        "RequestBodyFuzzTest: %d bodies (%.1f MB) in %.1f s (%.1f s CPU), seed %d, retained heap"
            + " %+d KiB: %s%n",
        BODIES, bytes / 1e6, seconds, cpuSeconds, SEED, heapGrowth / 1024, outcomes);
    assertThat(outcomes.getOrDefault("routed by load (tokenizer_error)", 0))
        .as("tokenizer errors (a RuntimeException the analysis swallowed)")
        .isZero();
    assertThat(outcomes.keySet())
        .as("both valid and invalid bodies were exercised")
        .contains("routed", "BAD_REQUEST");
    // The tokenizer's prefix cache is the only state kept across requests, and it is bounded.
    assertThat(heapGrowth).as("heap retained after the run").isLessThan(96L << 20);
  }

  /** One mutation (sometimes two) of a valid seed body. */
  static byte[] mutate(Random rng, String seed) {
    byte[] b = seed.getBytes(StandardCharsets.UTF_8);
    int rounds = 1 + (rng.nextInt(4) == 0 ? 1 : 0);
    for (int k = 0; k < rounds; k++) {
      b =
          switch (rng.nextInt(10)) {
            case 0 -> flip(rng, b);
            case 1 -> insert(rng, b, STRUCTURE[rng.nextInt(STRUCTURE.length)]);
            case 2 -> cut(rng, b);
            case 3 -> java.util.Arrays.copyOf(b, rng.nextInt(b.length + 1));
            case 4 -> splice(rng, b);
            case 5, 6 -> confuse(rng, b);
            case 7 -> nest(rng, b);
            case 8 -> longString(rng, b);
            default -> insert(rng, b, BROKEN[rng.nextInt(BROKEN.length)]);
          };
    }
    return b;
  }

  private static final String[] STRUCTURE = {
    "{", "}", "[", "]", "\"", ",", ":", "-", "1e309", "null", "\\", "\\u", "\\ud800", " ", "0x1"
  };

  private static final String[] BROKEN = {
    "\u0000", "\uFFFF", "\uD83D\uDE00", "\\u0000", "\\udfff", "\"\u0001\"", "\u00e9", "\ud800"
  };

  private static byte[] flip(Random rng, byte[] b) {
    if (b.length == 0) {
      return b;
    }
    byte[] c = b.clone();
    int n = 1 + rng.nextInt(3);
    for (int i = 0; i < n; i++) {
      int at = rng.nextInt(c.length);
      c[at] = rng.nextBoolean() ? (byte) (c[at] ^ (1 << rng.nextInt(8))) : (byte) rng.nextInt(256);
    }
    return c;
  }

  private static byte[] insert(Random rng, byte[] b, String s) {
    int at = rng.nextInt(b.length + 1);
    byte[] ins = s.getBytes(StandardCharsets.UTF_8);
    byte[] c = new byte[b.length + ins.length];
    System.arraycopy(b, 0, c, 0, at);
    System.arraycopy(ins, 0, c, at, ins.length);
    System.arraycopy(b, at, c, at + ins.length, b.length - at);
    return c;
  }

  private static byte[] cut(Random rng, byte[] b) {
    if (b.length == 0) {
      return b;
    }
    int at = rng.nextInt(b.length);
    int n = Math.min(b.length - at, 1 + rng.nextInt(8));
    byte[] c = new byte[b.length - n];
    System.arraycopy(b, 0, c, 0, at);
    System.arraycopy(b, at + n, c, at, b.length - at - n);
    return c;
  }

  private static byte[] splice(Random rng, byte[] b) {
    if (b.length < 2) {
      return b;
    }
    int from = rng.nextInt(b.length);
    int len = Math.min(b.length - from, 1 + rng.nextInt(64));
    String piece = new String(b, from, len, StandardCharsets.ISO_8859_1);
    return insert(rng, b, piece).clone();
  }

  /** Parses the body and replaces one value somewhere with one of another type. */
  @SuppressWarnings("unchecked")
  private static byte[] confuse(Random rng, byte[] b) {
    Object root;
    try {
      root = Json.parse(b);
    } catch (JsonException e) {
      return flip(rng, b);
    }
    List<Object> containers = new ArrayList<>();
    collect(root, containers);
    if (containers.isEmpty()) {
      return b;
    }
    Object c = containers.get(rng.nextInt(containers.size()));
    Object v = strange(rng);
    if (c instanceof Map<?, ?> m && !m.isEmpty()) {
      List<Object> keys = new ArrayList<>(m.keySet());
      Object key = keys.get(rng.nextInt(keys.size()));
      if (rng.nextInt(8) == 0) {
        ((Map<Object, Object>) m).remove(key);
      } else {
        ((Map<Object, Object>) m).put(key, v);
      }
    } else if (c instanceof List<?> l && !l.isEmpty()) {
      ((List<Object>) l).set(rng.nextInt(l.size()), v);
    } else if (c instanceof List<?> l) {
      ((List<Object>) l).add(v);
    }
    return Json.write(root).getBytes(StandardCharsets.UTF_8);
  }

  private static void collect(Object o, List<Object> out) {
    if (o instanceof Map<?, ?> m) {
      out.add(m);
      m.values().forEach(v -> collect(v, out));
    } else if (o instanceof List<?> l) {
      out.add(l);
      l.forEach(v -> collect(v, out));
    }
  }

  private static Object strange(Random rng) {
    return switch (rng.nextInt(14)) {
      case 0 -> null;
      case 1 -> true;
      case 2 -> -1L;
      case 3 -> Long.MAX_VALUE;
      case 4 -> new java.math.BigInteger("123456789012345678901234567890");
      case 5 -> 1.5e308;
      case 6 -> "";
      case 7 -> "{{ 7 * 7 }}{% for x in range(3) %}{{ x }}{% endfor %}";
      case 8 -> new ArrayList<>(List.of(1L, "a", Map.of()));
      case 9 ->
          new LinkedHashMap<>(Map.of("role", "user", "content", List.of(Map.of("type", "x"))));
      case 10 -> new LinkedHashMap<>(Map.of("type", "text", "text", 5L));
      case 11 -> new ArrayList<>();
      case 12 -> new LinkedHashMap<>();
      default -> "user";
    };
  }

  /** Wraps a value inside the body in nesting around the JSON depth limit, or far past it. */
  private static byte[] nest(Random rng, byte[] b) {
    String s = new String(b, StandardCharsets.UTF_8);
    int colon = s.indexOf(':', rng.nextInt(Math.max(1, s.length())));
    if (colon < 0) {
      colon = s.indexOf(':');
    }
    if (colon < 0) {
      return b;
    }
    int depth =
        switch (rng.nextInt(4)) {
          case 0 -> Json.MAX_DEPTH - 3 + rng.nextInt(6);
          case 1 -> 10_000;
          default -> 1 + rng.nextInt(Json.MAX_DEPTH);
        };
    boolean arrays = rng.nextBoolean();
    String open = arrays ? "[" : "{\"k\":";
    String close = arrays ? "]" : "}";
    int end = valueEnd(s, colon + 1);
    return (s.substring(0, colon + 1)
            + open.repeat(depth)
            + s.substring(colon + 1, end)
            + close.repeat(rng.nextInt(8) == 0 ? depth / 2 : depth)
            + s.substring(end))
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The end of the JSON value starting at {@code from} (a scalar or a bracketed value). */
  private static int valueEnd(String s, int from) {
    int depth = 0;
    boolean str = false;
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      if (str) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          str = false;
          if (depth == 0) {
            return i + 1;
          }
        }
        continue;
      }
      switch (c) {
        case '"' -> str = true;
        case '{', '[' -> depth++;
        case '}', ']' -> {
          if (depth == 0) {
            return i;
          }
          depth--;
          if (depth == 0) {
            return i + 1;
          }
        }
        case ',' -> {
          if (depth == 0) {
            return i;
          }
        }
        default -> {}
      }
    }
    return s.length();
  }

  /** Replaces the body's first string with a long one (rarely: this one is tokenized). */
  private static byte[] longString(Random rng, byte[] b) {
    String s = new String(b, StandardCharsets.UTF_8);
    int q = s.indexOf("\"content\":\"");
    if (q < 0) {
      q = s.indexOf("\"prompt\":\"");
    }
    if (q < 0 || rng.nextInt(50) != 0) {
      return flip(rng, b);
    }
    int start = s.indexOf(':', q) + 2;
    int end = s.indexOf('"', start);
    if (end < 0) {
      return b;
    }
    int n = 1024 + rng.nextInt(16 * 1024);
    String unit = rng.nextBoolean() ? "x" : "lorem ipsum dolor sit amet ";
    return (s.substring(0, start) + unit.repeat(n / unit.length() + 1) + s.substring(end))
        .getBytes(StandardCharsets.UTF_8);
  }

  private static long usedHeapAfterGc() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  private static String abbrev(byte[] body) {
    String s = new String(body, StandardCharsets.UTF_8);
    return s.length() > 400 ? s.substring(0, 400) + "… (" + body.length + " bytes)" : s;
  }
}
