package io.infera.router.relay;

import io.infera.router.events.zmq.ZmqEndpoints;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.JetStreamSetup;
import io.infera.router.nats.NatsAuth;
import io.infera.router.nats.NatsKeys;
import io.infera.router.nats.RelayProtocol;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Everything one relay needs, validated when built; an invalid value throws {@link InvalidOption}
 * naming the option by its command-line name (without the dashes).
 *
 * @param zmqEndpoint the engine's KV-event PUB endpoint of rank 0 (rank r: port + r)
 * @param replayEndpoint the engine's replay ROUTER endpoint of rank 0, or null (gaps stay gaps)
 * @param natsUrl NATS server URL(s), comma-separated
 * @param workerId the worker's id (its pod name): the subject token and snapshot key
 * @param pool the worker's pool: the subject's and snapshot key's first token, what the relay's
 *     NATS credentials are scoped to (default {@code static})
 * @param engine {@code vllm}, {@code sglang} or {@code atom} (its {@code Infera-Engine} header)
 * @param blockSize the engine's KV block size
 * @param dpSize data-parallel ranks, each with its own socket, subject and snapshot
 * @param subjectPrefix subjects are {@code <prefix>.<pool>.<token>.<rank>}
 * @param stream the JetStream stream (created when missing)
 * @param snapshotBucket the snapshot KV bucket (created when missing)
 * @param snapshotEveryEvents a snapshot after this many applied events
 * @param snapshotEvery a snapshot after this long, when the view changed
 * @param snapshotMinInterval snapshots of one rank at most this often (taking one copies the view
 *     on the publishing thread)
 * @param bufferBatches batches held while NATS is away (queued plus unacknowledged); beyond, the
 *     relay folds them into its view and resyncs (see {@link RelayProtocol})
 * @param bufferBytes payload bytes of those batches held at most; beyond, the same folding and
 *     resync (a few huge batches cannot exhaust the relay's memory under the batch bound)
 * @param publishWindow batches published and not yet acknowledged at most
 * @param publishTimeout longest wait for one acknowledgement or NATS request
 * @param reconnectWait first back-off after a failed connect or publish
 * @param reconnectWaitMax back-off cap
 * @param drainTimeout on close, longest wait to publish what is buffered and write snapshots
 * @param streamLimits the stream's limits when the relay creates it
 * @param auth credentials and TLS of the NATS connection ({@link NatsAuth#NONE}: anonymous)
 */
public record RelayOptions(
    String zmqEndpoint,
    String replayEndpoint,
    String natsUrl,
    WorkerId workerId,
    String pool,
    String engine,
    int blockSize,
    int dpSize,
    String subjectPrefix,
    String stream,
    String snapshotBucket,
    long snapshotEveryEvents,
    Duration snapshotEvery,
    Duration snapshotMinInterval,
    int bufferBatches,
    long bufferBytes,
    int publishWindow,
    Duration publishTimeout,
    Duration reconnectWait,
    Duration reconnectWaitMax,
    Duration drainTimeout,
    JetStreamSetup.Limits streamLimits,
    NatsAuth auth) {

  public static final int DEFAULT_BLOCK_SIZE = 16;
  public static final long DEFAULT_SNAPSHOT_EVERY_EVENTS = 1000;
  public static final Duration DEFAULT_SNAPSHOT_EVERY = Duration.ofSeconds(5);
  public static final Duration DEFAULT_SNAPSHOT_MIN_INTERVAL = Duration.ofSeconds(1);
  public static final int DEFAULT_BUFFER_BATCHES = 10_000;
  public static final long DEFAULT_BUFFER_BYTES = 64L << 20;
  private static final long MAX_BUFFER_BYTES = 1L << 40;
  public static final int DEFAULT_PUBLISH_WINDOW = 256;
  public static final Duration DEFAULT_PUBLISH_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration DEFAULT_RECONNECT_WAIT = Duration.ofMillis(250);
  public static final Duration DEFAULT_RECONNECT_WAIT_MAX = Duration.ofSeconds(5);
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(10);

  /** Engines whose KV events the relay understands. */
  public static final Set<String> ENGINES = Set.of("vllm", "sglang", "atom");

  private static final int MAX_DP_SIZE = 1024;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");
  private static final Pattern SUBJECT_TOKEN = Pattern.compile("[^\\s.*>]+");
  private static final Set<String> NATS_SCHEMES = Set.of("nats", "tls", "ws", "wss");

  /** An option with an invalid value; {@link #getMessage()} is {@code --<key> <reason>}. */
  public static final class InvalidOption extends IllegalArgumentException {
    private final String key;
    private final String reason;

    public InvalidOption(String key, String reason) {
      super("--" + key + " " + reason);
      this.key = key;
      this.reason = reason;
    }

    /** The option's command-line name without dashes, e.g. {@code block-size}. */
    public String key() {
      return key;
    }

    /** What is wrong, e.g. {@code must be >= 1, got 0}. */
    public String reason() {
      return reason;
    }
  }

  public RelayOptions {
    zmqEndpoint = endpoint("zmq", zmqEndpoint, true, dpSize);
    replayEndpoint = endpoint("replay", replayEndpoint, false, dpSize);
    natsUrl = natsUrl(natsUrl);
    if (workerId == null) {
      throw new InvalidOption("worker-id", "is required (or set POD_NAME / HOSTNAME)");
    }
    pool = pool == null ? EventSubjects.DEFAULT_POOL : pool;
    if (!EventSubjects.validPool(pool)) {
      throw new InvalidOption(
          "pool",
          "must be 1-"
              + EventSubjects.MAX_POOL_LENGTH
              + " letters, digits, '-' or '_', got '"
              + pool
              + "'");
    }
    if (engine == null || !ENGINES.contains(engine)) {
      throw new InvalidOption("engine", "must be vllm, sglang or atom, got '" + engine + "'");
    }
    if (blockSize < 1 || blockSize > (1 << 20)) {
      throw new InvalidOption("block-size", "must be in [1, 1048576], got " + blockSize);
    }
    if (dpSize < 1 || dpSize > MAX_DP_SIZE) {
      throw new InvalidOption("dp-size", "must be in [1, " + MAX_DP_SIZE + "], got " + dpSize);
    }
    subjectPrefix = subjectPrefix(subjectPrefix);
    if (stream == null || !NAME.matcher(stream).matches()) {
      throw new InvalidOption(
          "stream", "must be letters, digits, '-' or '_', got '" + stream + "'");
    }
    if (snapshotBucket == null || !NAME.matcher(snapshotBucket).matches()) {
      throw new InvalidOption(
          "snapshot-bucket", "must be letters, digits, '-' or '_', got '" + snapshotBucket + "'");
    }
    if (snapshotEveryEvents < 1) {
      throw new InvalidOption("snapshot-every-events", "must be >= 1, got " + snapshotEveryEvents);
    }
    positive("snapshot-every", snapshotEvery);
    nonNegative("snapshot-min-interval", snapshotMinInterval);
    if (bufferBatches < 1) {
      throw new InvalidOption("buffer", "must be >= 1, got " + bufferBatches);
    }
    if (bufferBytes < 1 || bufferBytes > MAX_BUFFER_BYTES) {
      throw new InvalidOption(
          "buffer-bytes", "must be in [1, " + MAX_BUFFER_BYTES + "], got " + bufferBytes);
    }
    if (publishWindow < 1 || publishWindow > 65_536) {
      throw new InvalidOption("publish-window", "must be in [1, 65536], got " + publishWindow);
    }
    positive("publish-timeout", publishTimeout);
    positive("reconnect-wait", reconnectWait);
    positive("reconnect-wait-max", reconnectWaitMax);
    if (reconnectWaitMax.compareTo(reconnectWait) < 0) {
      throw new InvalidOption("reconnect-wait-max", "must be >= --reconnect-wait");
    }
    nonNegative("drain-timeout", drainTimeout);
    Objects.requireNonNull(streamLimits, "streamLimits");
    auth = auth == null ? NatsAuth.NONE : auth;
  }

  /** Defaults for everything but the endpoints and the worker id. */
  public static Builder builder(String zmqEndpoint, String natsUrl, WorkerId workerId) {
    return new Builder(zmqEndpoint, natsUrl, workerId);
  }

  /** The subject of rank {@code rank}. */
  public String subject(int rank) {
    return EventSubjects.subject(subjectPrefix, pool, workerId, rank);
  }

  /** The snapshot key of rank {@code rank}. */
  public String snapshotKey(int rank) {
    return NatsKeys.snapshotKey(pool, workerId, rank);
  }

  private static String endpoint(String key, String value, boolean required, int dpSize) {
    if (value == null || value.isBlank()) {
      if (required) {
        throw new InvalidOption(key, "is required (e.g. tcp://127.0.0.1:5557)");
      }
      return null;
    }
    String v = value.strip();
    if (!(v.startsWith("tcp://") || v.startsWith("ipc://") || v.startsWith("inproc://"))) {
      throw new InvalidOption(
          key, "must be a tcp://, ipc:// or inproc:// endpoint, got '" + v + "'");
    }
    if (dpSize > 1) {
      try {
        ZmqEndpoints.offsetEndpointPort(v, dpSize - 1);
      } catch (IllegalArgumentException e) {
        throw new InvalidOption(key, e.getMessage() + " (needed for --dp-size " + dpSize + ")");
      }
    }
    return v;
  }

  private static String natsUrl(String value) {
    if (value == null || value.isBlank()) {
      throw new InvalidOption("nats", "is required (e.g. nats://127.0.0.1:4222)");
    }
    String v = value.strip();
    for (String part : v.split(",")) {
      String p = part.strip();
      try {
        URI u = new URI(p);
        if (u.getScheme() == null || !NATS_SCHEMES.contains(u.getScheme()) || u.getHost() == null) {
          throw new InvalidOption(
              "nats", "must be nats://host:port (or tls, ws, wss), got '" + p + "'");
        }
      } catch (URISyntaxException e) {
        throw new InvalidOption("nats", "is not a URL: '" + p + "'");
      }
    }
    return v;
  }

  private static String subjectPrefix(String value) {
    if (value == null || value.isEmpty()) {
      throw new InvalidOption("subject-prefix", "must not be empty");
    }
    for (String token : value.split("\\.", -1)) {
      if (!SUBJECT_TOKEN.matcher(token).matches()) {
        throw new InvalidOption(
            "subject-prefix",
            "must be dot-separated NATS tokens without spaces or wildcards, got '" + value + "'");
      }
    }
    return value;
  }

  private static void positive(String key, Duration d) {
    nonNegative(key, d);
    if (d.isZero()) {
      throw new InvalidOption(key, "must be > 0");
    }
  }

  private static void nonNegative(String key, Duration d) {
    if (d == null) {
      throw new InvalidOption(key, "is required");
    }
    if (d.isNegative()) {
      throw new InvalidOption(key, "must not be negative, got " + d);
    }
  }

  /** Builds {@link RelayOptions}, every knob defaulted. */
  public static final class Builder {
    private String zmqEndpoint;
    private String replayEndpoint;
    private String natsUrl;
    private WorkerId workerId;
    private String pool = EventSubjects.DEFAULT_POOL;
    private String engine = "vllm";
    private int blockSize = DEFAULT_BLOCK_SIZE;
    private int dpSize = 1;
    private String subjectPrefix = EventSubjects.DEFAULT_PREFIX;
    private String stream = EventSubjects.DEFAULT_STREAM;
    private String snapshotBucket = EventSubjects.DEFAULT_BUCKET;
    private long snapshotEveryEvents = DEFAULT_SNAPSHOT_EVERY_EVENTS;
    private Duration snapshotEvery = DEFAULT_SNAPSHOT_EVERY;
    private Duration snapshotMinInterval = DEFAULT_SNAPSHOT_MIN_INTERVAL;
    private int bufferBatches = DEFAULT_BUFFER_BATCHES;
    private long bufferBytes = DEFAULT_BUFFER_BYTES;
    private int publishWindow = DEFAULT_PUBLISH_WINDOW;
    private Duration publishTimeout = DEFAULT_PUBLISH_TIMEOUT;
    private Duration reconnectWait = DEFAULT_RECONNECT_WAIT;
    private Duration reconnectWaitMax = DEFAULT_RECONNECT_WAIT_MAX;
    private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
    private JetStreamSetup.Limits streamLimits = JetStreamSetup.Limits.defaults();
    private NatsAuth auth = NatsAuth.NONE;

    private Builder(String zmqEndpoint, String natsUrl, WorkerId workerId) {
      this.zmqEndpoint = zmqEndpoint;
      this.natsUrl = natsUrl;
      this.workerId = workerId;
    }

    public Builder zmqEndpoint(String v) {
      zmqEndpoint = v;
      return this;
    }

    public Builder replayEndpoint(String v) {
      replayEndpoint = v;
      return this;
    }

    public Builder natsUrl(String v) {
      natsUrl = v;
      return this;
    }

    public Builder workerId(WorkerId v) {
      workerId = v;
      return this;
    }

    public Builder pool(String v) {
      pool = v;
      return this;
    }

    public Builder auth(NatsAuth v) {
      auth = v;
      return this;
    }

    public Builder engine(String v) {
      engine = v;
      return this;
    }

    public Builder blockSize(int v) {
      blockSize = v;
      return this;
    }

    public Builder dpSize(int v) {
      dpSize = v;
      return this;
    }

    public Builder subjectPrefix(String v) {
      subjectPrefix = v;
      return this;
    }

    public Builder stream(String v) {
      stream = v;
      return this;
    }

    public Builder snapshotBucket(String v) {
      snapshotBucket = v;
      return this;
    }

    public Builder snapshotEveryEvents(long v) {
      snapshotEveryEvents = v;
      return this;
    }

    public Builder snapshotEvery(Duration v) {
      snapshotEvery = v;
      return this;
    }

    public Builder snapshotMinInterval(Duration v) {
      snapshotMinInterval = v;
      return this;
    }

    public Builder bufferBatches(int v) {
      bufferBatches = v;
      return this;
    }

    public Builder bufferBytes(long v) {
      bufferBytes = v;
      return this;
    }

    public Builder publishWindow(int v) {
      publishWindow = v;
      return this;
    }

    public Builder publishTimeout(Duration v) {
      publishTimeout = v;
      return this;
    }

    public Builder reconnectWait(Duration v) {
      reconnectWait = v;
      return this;
    }

    public Builder reconnectWaitMax(Duration v) {
      reconnectWaitMax = v;
      return this;
    }

    public Builder drainTimeout(Duration v) {
      drainTimeout = v;
      return this;
    }

    public Builder streamLimits(JetStreamSetup.Limits v) {
      streamLimits = v;
      return this;
    }

    /**
     * @throws InvalidOption naming the first invalid option
     */
    public RelayOptions build() {
      return new RelayOptions(
          zmqEndpoint,
          replayEndpoint,
          natsUrl,
          workerId,
          pool,
          engine,
          blockSize,
          dpSize,
          subjectPrefix,
          stream,
          snapshotBucket,
          snapshotEveryEvents,
          snapshotEvery,
          snapshotMinInterval,
          bufferBatches,
          bufferBytes,
          publishWindow,
          publishTimeout,
          reconnectWait,
          reconnectWaitMax,
          drainTimeout,
          streamLimits,
          auth);
    }
  }
}
