package io.infera.sim.workload;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * The Mooncake-format traces shipped inside the simulator (gzip-compressed resources under {@code
 * io/infera/sim/traces/}, their origin and license in {@code SOURCE.md} there), so that {@code
 * infera-sim bench --trace NAME} replays them without a file.
 */
public enum BundledTrace {
  /** Mooncake's FAST'25 synthetic trace: 3,993 requests, Poisson arrivals, about 17 minutes. */
  MOONCAKE_SYNTHETIC("mooncake-synthetic", "mooncake_synthetic.jsonl.gz", 3993),
  /** Mooncake's FAST'25 conversation trace: 12,031 requests sampled from an hour of service. */
  MOONCAKE_CONVERSATION("mooncake-conversation", "mooncake_conversation.jsonl.gz", 12031);

  private static final String DIR = "/io/infera/sim/traces/";

  private final String traceName;
  private final String resource;
  private final int requests;

  BundledTrace(String traceName, String resource, int requests) {
    this.traceName = traceName;
    this.resource = resource;
    this.requests = requests;
  }

  /** The name {@code --trace} accepts. */
  public String traceName() {
    return traceName;
  }

  /** Requests (lines) in the trace. */
  public int requests() {
    return requests;
  }

  /** The bundled trace called {@code name}, or null. */
  public static BundledTrace byName(String name) {
    for (BundledTrace t : values()) {
      if (t.traceName.equals(name)) {
        return t;
      }
    }
    return null;
  }

  /** Every bundled name, in declaration order. */
  public static List<String> names() {
    List<String> out = new ArrayList<>();
    for (BundledTrace t : values()) {
      out.add(t.traceName);
    }
    return List.copyOf(out);
  }

  /** The trace's JSON Lines, decompressed; the caller closes the reader. */
  public Reader open() throws IOException {
    InputStream in = BundledTrace.class.getResourceAsStream(DIR + resource);
    if (in == null) {
      throw new IOException("bundled trace " + traceName + " is missing from the classpath");
    }
    try {
      return new InputStreamReader(new GZIPInputStream(in, 1 << 16), StandardCharsets.UTF_8);
    } catch (IOException e) {
      in.close();
      throw e;
    }
  }

  /** Parses the trace with {@code options}. */
  public TraceWorkload load(TraceWorkload.Options options)
      throws IOException, TraceFormatException {
    try (Reader r = open()) {
      return TraceWorkload.parse(r, traceName, options);
    }
  }
}
