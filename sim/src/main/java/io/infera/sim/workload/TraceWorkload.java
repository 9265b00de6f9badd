package io.infera.sim.workload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * Replays a Mooncake-format trace (JSON Lines), one single-turn session per line:
 *
 * <pre>{@code
 * {"timestamp": 27482, "input_length": 1100, "output_length": 52, "hash_ids": [46, 47, 48]}
 * }</pre>
 *
 * <p>{@code timestamp} is in ms; sessions start at {@code (timestamp − earliest timestamp) /
 * speedup}. Each hash id stands for one block of {@link Options#blockTokens} (512) prompt tokens,
 * so {@code hash_ids} must have exactly ⌈input_length / blockTokens⌉ entries; the last block holds
 * the remaining {@code input_length − blockTokens × (n − 1)} tokens. A block's tokens are drawn
 * from a seeded stream keyed by its hash id: equal hash ids give equal tokens (a partial block is a
 * prefix of the full one), so the trace's prefix sharing carries over to the synthetic prompts.
 *
 * <p>Parsing is line by line with Jackson's streaming parser; only the hash ids are kept in memory
 * and each session's tokens are generated when it is fetched from {@link #sessions()}. Unknown
 * fields are ignored, blank lines skipped; anything else that is wrong fails with a {@link
 * TraceFormatException} naming the line.
 */
public final class TraceWorkload implements Workload {

  public static final String NAME = "trace";

  /** Tokens per hash id in Mooncake's published traces. */
  public static final int MOONCAKE_BLOCK_TOKENS = 512;

  /** Largest accepted input or output length, in tokens (16 Mi: far beyond any context window). */
  public static final int MAX_LENGTH = 1 << 24;

  /** Largest accepted timestamp, in ms (about 31,700 years: rejects garbage, accepts epoch ms). */
  public static final double MAX_TIMESTAMP_MS = 1e15;

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder().maxNestingDepth(64).maxNumberLength(100).build())
          .build();

  /**
   * How to replay.
   *
   * @param seed seeds the tokens drawn for each hash id
   * @param blockTokens tokens per hash id, ≥ 1 ({@value #MOONCAKE_BLOCK_TOKENS} for Mooncake)
   * @param speedup time compression, &gt; 0: 2 replays the trace twice as fast
   * @param maxRequests keep only the first this many requests of the file, ≥ 1
   */
  public record Options(long seed, int blockTokens, double speedup, int maxRequests) {

    public Options {
      Checks.positive("blockTokens", blockTokens);
      Checks.positive("maxRequests", maxRequests);
      if (!(speedup > 0) || Double.isInfinite(speedup)) {
        throw new IllegalArgumentException("speedup must be finite and > 0, got " + speedup);
      }
    }

    /** Seed 0, 512-token blocks, real time, every request. */
    public static Options defaults() {
      return new Options(0, MOONCAKE_BLOCK_TOKENS, 1.0, Integer.MAX_VALUE);
    }

    public Options withSeed(long seed) {
      return new Options(seed, blockTokens, speedup, maxRequests);
    }

    public Options withSpeedup(double speedup) {
      return new Options(seed, blockTokens, speedup, maxRequests);
    }

    public Options withMaxRequests(int maxRequests) {
      return new Options(seed, blockTokens, speedup, maxRequests);
    }

    public Options withBlockTokens(int blockTokens) {
      return new Options(seed, blockTokens, speedup, maxRequests);
    }
  }

  /** One parsed line. */
  private record Entry(
      int line, double timestampMs, int inputLength, int outputLength, long[] hashIds) {}

  private final String source;
  private final Options options;
  private final Entry[] entries;
  private final double[] startMs;
  private final WorkloadStats stats;

  private TraceWorkload(String source, Options options, List<Entry> parsed) {
    this.source = source;
    this.options = options;
    Entry[] sorted = parsed.toArray(new Entry[0]);
    // Stable: equal timestamps keep file order.
    Arrays.sort(sorted, Comparator.comparingDouble(Entry::timestampMs));
    this.entries = sorted;
    this.startMs = new double[sorted.length];
    double first = sorted[0].timestampMs();
    for (int i = 0; i < sorted.length; i++) {
      startMs[i] = (sorted[i].timestampMs() - first) / options.speedup();
    }
    this.stats = computeStats(sorted, options.blockTokens());
  }

  /** Reads {@code file} (UTF-8 JSON Lines). */
  public static TraceWorkload load(Path file, Options options)
      throws IOException, TraceFormatException {
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return parse(r, file.getFileName().toString(), options);
    }
  }

  /** Parses JSON Lines text; {@code source} labels error messages. */
  public static TraceWorkload parse(String text, String source, Options options)
      throws TraceFormatException {
    try {
      return parse(new StringReader(text), source, options);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringReader does not fail
    }
  }

  /** Parses JSON Lines from {@code reader} (not closed); {@code source} labels error messages. */
  public static TraceWorkload parse(Reader reader, String source, Options options)
      throws IOException, TraceFormatException {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(options, "options");
    BufferedReader in =
        reader instanceof BufferedReader b ? b : new BufferedReader(reader, 1 << 16);
    List<Entry> parsed = new ArrayList<>();
    int lineNo = 0;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      lineNo++;
      if (lineNo == 1 && line.startsWith("\uFEFF")) {
        line = line.substring(1);
      }
      if (line.isBlank()) {
        continue;
      }
      parsed.add(parseLine(line, lineNo, source, options.blockTokens()));
      if (parsed.size() >= options.maxRequests()) {
        break;
      }
    }
    if (parsed.isEmpty()) {
      throw new TraceFormatException(source, 0, "no requests (the trace has no non-blank line)");
    }
    return new TraceWorkload(source, options, parsed);
  }

  private static Entry parseLine(String line, int lineNo, String source, int blockTokens)
      throws TraceFormatException {
    LineParser lp = new LineParser(source, lineNo);
    try (JsonParser p = FACTORY.createParser(line)) {
      return lp.parse(p, blockTokens);
    } catch (JsonProcessingException e) {
      throw lp.fail(describe(e));
    } catch (IOException e) {
      throw lp.fail("unreadable line: " + firstLine(e.getMessage()));
    }
  }

  /** Parses one line's object; a fresh instance per line. */
  private static final class LineParser {
    private final String source;
    private final int lineNo;
    private Double timestamp;
    private Integer inputLength;
    private Integer outputLength;
    private long[] hashIds;

    LineParser(String source, int lineNo) {
      this.source = source;
      this.lineNo = lineNo;
    }

    Entry parse(JsonParser p, int blockTokens) throws IOException, TraceFormatException {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw fail("expected a JSON object");
      }
      for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
        if (t != JsonToken.FIELD_NAME) {
          throw fail("expected a field name");
        }
        String name = p.currentName();
        JsonToken v = p.nextToken();
        switch (name) {
          case "timestamp" -> {
            once(name, timestamp);
            timestamp = timestamp(p, v);
          }
          case "input_length" -> {
            once(name, inputLength);
            inputLength = length(p, v, name);
          }
          case "output_length" -> {
            once(name, outputLength);
            outputLength = length(p, v, name);
          }
          case "hash_ids" -> {
            once(name, hashIds);
            hashIds = hashIds(p, v);
          }
          default -> p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        throw fail("unexpected data after the JSON object");
      }
      if (timestamp == null) {
        throw fail("missing field \"timestamp\"");
      }
      if (inputLength == null) {
        throw fail("missing field \"input_length\"");
      }
      if (outputLength == null) {
        throw fail("missing field \"output_length\"");
      }
      if (hashIds == null) {
        throw fail("missing field \"hash_ids\"");
      }
      long blocks = ((long) inputLength + blockTokens - 1) / blockTokens;
      if (hashIds.length != blocks) {
        throw fail(
            "hash_ids has "
                + hashIds.length
                + " entries but input_length "
                + inputLength
                + " needs ⌈"
                + inputLength
                + " / "
                + blockTokens
                + "⌉ = "
                + blocks
                + " (one per "
                + blockTokens
                + "-token block; is the trace's block size "
                + blockTokens
                + "?)");
      }
      return new Entry(lineNo, timestamp, inputLength, outputLength, hashIds);
    }

    private void once(String name, Object seen) throws TraceFormatException {
      if (seen != null) {
        throw fail("duplicate field \"" + name + "\"");
      }
    }

    private double timestamp(JsonParser p, JsonToken v) throws IOException, TraceFormatException {
      if (v != JsonToken.VALUE_NUMBER_INT && v != JsonToken.VALUE_NUMBER_FLOAT) {
        throw fail("\"timestamp\" must be a number (ms), got " + kind(v));
      }
      double ms = p.getDoubleValue();
      if (!(ms >= 0) || ms > MAX_TIMESTAMP_MS) {
        throw fail(
            "\"timestamp\" must be between 0 and " + MAX_TIMESTAMP_MS + " ms, got " + p.getText());
      }
      return ms;
    }

    private int length(JsonParser p, JsonToken v, String name)
        throws IOException, TraceFormatException {
      if (v != JsonToken.VALUE_NUMBER_INT) {
        throw fail("\"" + name + "\" must be an integer, got " + kind(v));
      }
      if (p.getNumberType() != JsonParser.NumberType.INT
          || p.getIntValue() < 1
          || p.getIntValue() > MAX_LENGTH) {
        throw fail("\"" + name + "\" must be between 1 and " + MAX_LENGTH + ", got " + p.getText());
      }
      return p.getIntValue();
    }

    private long[] hashIds(JsonParser p, JsonToken v) throws IOException, TraceFormatException {
      if (v != JsonToken.START_ARRAY) {
        throw fail("\"hash_ids\" must be an array of integers, got " + kind(v));
      }
      long[] ids = new long[16];
      int n = 0;
      for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
        if (t != JsonToken.VALUE_NUMBER_INT) {
          throw fail("\"hash_ids\"[" + n + "] must be an integer, got " + kind(t));
        }
        JsonParser.NumberType type = p.getNumberType();
        if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
          throw fail("\"hash_ids\"[" + n + "] is out of the 64-bit range: " + p.getText());
        }
        if (n == ids.length) {
          ids = Arrays.copyOf(ids, 2 * n);
        }
        ids[n++] = p.getLongValue();
      }
      return Arrays.copyOf(ids, n);
    }

    private static String kind(JsonToken t) {
      if (t == null) {
        return "end of line";
      }
      return switch (t) {
        case START_OBJECT -> "an object";
        case START_ARRAY -> "an array";
        case VALUE_STRING -> "a string";
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
        case VALUE_TRUE, VALUE_FALSE -> "a boolean";
        case VALUE_NULL -> "null";
        default -> t.asString() == null ? t.name() : t.asString();
      };
    }

    TraceFormatException fail(String detail) {
      return new TraceFormatException(source, lineNo, detail);
    }
  }

  private static String describe(JsonProcessingException e) {
    String what = firstLine(e.getOriginalMessage());
    if (e.getLocation() != null && e.getLocation().getColumnNr() > 0) {
      return "invalid JSON at column " + e.getLocation().getColumnNr() + ": " + what;
    }
    return "invalid JSON: " + what;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    String line = nl < 0 ? s : s.substring(0, nl);
    // Jackson appends source descriptions that say nothing to a user.
    return line.replaceAll("\\s*\\(start marker at \\[Source: [^\\]]*\\][^)]*\\)", "")
        .replaceAll("\\s*(at )?\\[Source: [^\\]]*\\]", "");
  }

  private static WorkloadStats computeStats(Entry[] entries, int blockTokens) {
    long prompt = 0;
    long output = 0;
    Map<Long, Integer> blockLength = new HashMap<>();
    for (Entry e : entries) {
      prompt += e.inputLength();
      output += e.outputLength();
      long[] ids = e.hashIds();
      for (int b = 0; b < ids.length; b++) {
        int n = Math.min(blockTokens, e.inputLength() - b * blockTokens);
        blockLength.merge(ids[b], n, Math::max);
      }
    }
    long distinct = 0;
    for (int n : blockLength.values()) {
      distinct += n;
    }
    return new WorkloadStats(entries.length, entries.length, prompt, prompt, output, distinct);
  }

  /**
   * The tokens of one block: the first {@code n} of the {@code blockTokens} drawn from the stream
   * keyed by {@code hashId}.
   */
  static int[] blockTokens(long seed, long hashId, int n) {
    return Vocabulary.random(Rng.keyed(seed, hashId), n);
  }

  private Session materialise(int i) {
    Entry e = entries[i];
    int block = options.blockTokens();
    int[] tokens = new int[e.inputLength()];
    long[] ids = e.hashIds();
    for (int b = 0; b < ids.length; b++) {
      int from = b * block;
      int n = Math.min(block, e.inputLength() - from);
      System.arraycopy(blockTokens(options.seed(), ids[b], n), 0, tokens, from, n);
    }
    return new Session(
        "line-" + e.line(),
        startMs[i],
        new int[0],
        "",
        List.of(Turn.of(tokens, e.outputLength(), 0)),
        "h" + ids[0]);
  }

  /** Generates each session's tokens on access; nothing is cached. */
  private final class LazySessions extends AbstractList<Session> implements RandomAccess {
    @Override
    public Session get(int index) {
      Objects.checkIndex(index, entries.length);
      return materialise(index);
    }

    @Override
    public int size() {
      return entries.length;
    }
  }

  /** The label given at load time (file name). */
  public String source() {
    return source;
  }

  public Options options() {
    return options;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Unmodifiable; each {@code get} generates that session's tokens and text afresh. */
  @Override
  public List<Session> sessions() {
    return new LazySessions();
  }

  @Override
  public WorkloadStats stats() {
    return stats;
  }

  @Override
  public Map<String, Object> parameters() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("workload", NAME);
    p.put("trace", source);
    p.put("requests", entries.length);
    p.put("block_tokens", options.blockTokens());
    p.put("speedup", options.speedup());
    p.put("seed", options.seed());
    return p;
  }
}
