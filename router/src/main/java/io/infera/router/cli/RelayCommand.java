package io.infera.router.cli;

import io.infera.router.kv.WorkerId;
import io.infera.router.nats.NatsAuth;
import io.infera.router.relay.Relay;
import io.infera.router.relay.RelayHttp;
import io.infera.router.relay.RelayOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code infera-router relay}: the sidecar that moves one engine's KV events to JetStream. */
@Command(
    name = "relay",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Relay one engine's KV events from its ZMQ sockets to NATS JetStream (docs/contracts.md):"
          + " verbatim, in order, gaps filled from the engine's replay socket, with snapshots of"
          + " the worker's view in the KV bucket. Runs until SIGTERM.",
      "Each flag's environment variable is INFERA_ + the flag name in upper case"
          + " (--block-size -> INFERA_BLOCK_SIZE); flag > env > default."
    })
public final class RelayCommand implements Callable<Integer> {

  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)?");

  @Spec CommandSpec spec;

  @Option(
      names = "--zmq",
      paramLabel = "ENDPOINT",
      description = "The engine's KV-event PUB endpoint, rank 0 (default tcp://127.0.0.1:5557).")
  String zmq;

  @Option(
      names = "--zmq-mode",
      paramLabel = "MODE",
      description =
          "How the SUB socket meets the engine's PUB: connect (default; the engine binds a"
              + " wildcard endpoint such as tcp://*:5557) or bind (the engine's endpoint is"
              + " --zmq itself, e.g. tcp://127.0.0.1:5557, which vLLM and SGLang connect to).")
  String zmqMode;

  @Option(
      names = "--replay",
      paramLabel = "ENDPOINT",
      description = "The engine's replay ROUTER endpoint, rank 0 (default: none).")
  String replay;

  @Option(
      names = "--nats",
      paramLabel = "URL",
      description = "NATS server URL(s), comma-separated (default nats://127.0.0.1:4222).")
  String nats;

  @Option(
      names = "--worker-id",
      paramLabel = "ID",
      description = "The worker's id (default: env POD_NAME, else HOSTNAME).")
  String workerId;

  @Option(
      names = "--engine",
      paramLabel = "E",
      description =
          "vllm (default), sglang or atom (ATOM binds its PUB and has no replay socket: use"
              + " --zmq-mode connect and no --replay).")
  String engine;

  @Option(names = "--block-size", paramLabel = "N", description = "KV block size (default 16).")
  String blockSize;

  @Option(
      names = "--dp-size",
      paramLabel = "N",
      description = "Data-parallel ranks; rank r publishes on port + r (default 1).")
  String dpSize;

  @Option(
      names = "--pool",
      paramLabel = "NAME",
      description =
          "The worker's pool: the subject's and snapshot key's first token, what the relay's NATS"
              + " credentials are scoped to (default static).")
  String pool;

  @Option(
      names = "--nats-user",
      paramLabel = "USER",
      description = "NATS user, with --nats-password-file.")
  String natsUser;

  @Option(
      names = "--nats-password-file",
      paramLabel = "FILE",
      description = "File holding the NATS user's password.")
  String natsPasswordFile;

  @Option(
      names = "--nats-creds",
      paramLabel = "FILE",
      description = "NATS credentials file (JWT and NKEY seed), instead of a user.")
  String natsCreds;

  @Option(
      names = "--nats-tls-ca",
      paramLabel = "FILE",
      description = "PEM CA certificates of the NATS server; set, TLS is required.")
  String natsTlsCa;

  @Option(
      names = "--nats-tls-cert",
      paramLabel = "FILE",
      description = "PEM client certificate for NATS, with --nats-tls-key.")
  String natsTlsCert;

  @Option(
      names = "--nats-tls-key",
      paramLabel = "FILE",
      description = "PEM PKCS#8 private key of --nats-tls-cert.")
  String natsTlsKey;

  @Option(
      names = "--subject-prefix",
      paramLabel = "P",
      description = "Subject prefix (default infera.kv.events).")
  String subjectPrefix;

  @Option(
      names = "--stream",
      paramLabel = "NAME",
      description = "JetStream stream (default INFERA_KV_EVENTS).")
  String stream;

  @Option(
      names = "--snapshot-bucket",
      paramLabel = "NAME",
      description = "Snapshot KV bucket (default infera_kv_snapshots).")
  String snapshotBucket;

  @Option(
      names = "--snapshot-every-events",
      paramLabel = "N",
      description = "Snapshot after this many events (default 1000).")
  String snapshotEveryEvents;

  @Option(
      names = "--snapshot-every",
      paramLabel = "DURATION",
      description = "Snapshot after this long when the view changed: 5s, 500ms, 2m (default 5s).")
  String snapshotEvery;

  @Option(
      names = "--buffer",
      paramLabel = "N",
      description =
          "Batches held while NATS is away (default 10000); beyond, they are folded into the"
              + " view and the worker resyncs.")
  String buffer;

  @Option(
      names = "--buffer-bytes",
      paramLabel = "BYTES",
      description =
          "Payload bytes of those batches held at most (default 67108864, 64 MiB); beyond, the"
              + " same folding and resync.")
  String bufferBytes;

  @Option(
      names = "--http-port",
      paramLabel = "PORT",
      description =
          "Port of GET /health (liveness) and GET /metrics (Prometheus), on all interfaces;"
              + " 0 turns them off (default 9400).")
  String httpPort;

  /** The default of {@code --http-port}. */
  public static final int DEFAULT_HTTP_PORT = 9400;

  private final Map<String, String> env;

  public RelayCommand() {
    this(System.getenv());
  }

  RelayCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    RelayOptions options;
    int port;
    boolean bindSub;
    try {
      options = options(flags(), env);
      port = httpPort(flags(), env);
      bindSub = bindSub(flags(), env);
    } catch (IllegalArgumentException e) {
      spec.commandLine().getErr().println("infera-router relay: " + e.getMessage());
      return 2;
    }
    Relay relay = new Relay(options, bindSub);
    RelayHttp http = null;
    if (port > 0) {
      try {
        http = RelayHttp.start(relay, "0.0.0.0", port);
      } catch (IOException e) {
        spec.commandLine()
            .getErr()
            .println(
                "infera-router relay: port "
                    + port
                    + " (HTTP, --http-port) "
                    + (e instanceof java.net.BindException
                        ? "is already in use"
                        : "cannot be served: " + e.getMessage()));
        return 1;
      }
    }
    CountDownLatch stopped = new CountDownLatch(1);
    RelayHttp served = http;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  relay.close();
                  if (served != null) {
                    served.close();
                  }
                  stopped.countDown();
                },
                "infera-relay-shutdown"));
    relay.start();
    try {
      // A publisher that died of a failure it could not handle ends the process (exit 1), so
      // that the container is restarted even without a liveness probe.
      while (!stopped.await(1, TimeUnit.SECONDS)) {
        if (!relay.alive()) {
          spec.commandLine().getErr().println("infera-router relay: the publisher stopped");
          return 1;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** {@code --http-port} (or {@code INFERA_HTTP_PORT}): 0..65535, default 9400. */
  static int httpPort(Map<String, String> flags, Map<String, String> env) {
    Values v = new Values(flags, env);
    int port = v.integer("--http-port").orElse(DEFAULT_HTTP_PORT);
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(
          v.describe("--http-port") + " must be 0..65535, got " + port);
    }
    return port;
  }

  /** {@code --zmq-mode} (or {@code INFERA_ZMQ_MODE}): connect (default) or bind. */
  static boolean bindSub(Map<String, String> flags, Map<String, String> env) {
    Values v = new Values(flags, env);
    String mode = v.getOr("--zmq-mode", "connect").strip().toLowerCase(Locale.ROOT);
    return switch (mode) {
      case "connect" -> false;
      case "bind" -> true;
      default ->
          throw new IllegalArgumentException(
              v.describe("--zmq-mode") + " must be connect or bind, got '" + mode + "'");
    };
  }

  private Map<String, String> flags() {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("--zmq", zmq);
    f.put("--zmq-mode", zmqMode);
    f.put("--replay", replay);
    f.put("--nats", nats);
    f.put("--worker-id", workerId);
    f.put("--engine", engine);
    f.put("--block-size", blockSize);
    f.put("--dp-size", dpSize);
    f.put("--pool", pool);
    f.put("--nats-user", natsUser);
    f.put("--nats-password-file", natsPasswordFile);
    f.put("--nats-creds", natsCreds);
    f.put("--nats-tls-ca", natsTlsCa);
    f.put("--nats-tls-cert", natsTlsCert);
    f.put("--nats-tls-key", natsTlsKey);
    f.put("--subject-prefix", subjectPrefix);
    f.put("--stream", stream);
    f.put("--snapshot-bucket", snapshotBucket);
    f.put("--snapshot-every-events", snapshotEveryEvents);
    f.put("--snapshot-every", snapshotEvery);
    f.put("--buffer", buffer);
    f.put("--buffer-bytes", bufferBytes);
    f.put("--http-port", httpPort);
    f.values().removeIf(v -> v == null);
    return f;
  }

  /** {@code --block-size} → {@code INFERA_BLOCK_SIZE}. */
  static String envName(String flag) {
    return "INFERA_" + flag.substring(2).replace('-', '_').toUpperCase(Locale.ROOT);
  }

  /**
   * The relay's options from flags (name → value, as given) and the environment: flag > env >
   * default.
   *
   * @throws IllegalArgumentException whose message names the flag (and the variable it came from)
   */
  static RelayOptions options(Map<String, String> flags, Map<String, String> env) {
    Values v = new Values(flags, env);
    String worker = v.get("--worker-id");
    if (worker == null) {
      worker = nonBlank(env.get("POD_NAME"));
    }
    if (worker == null) {
      worker = nonBlank(env.get("HOSTNAME"));
    }
    RelayOptions.Builder b =
        RelayOptions.builder(
            v.getOr("--zmq", "tcp://127.0.0.1:5557"),
            v.getOr("--nats", "nats://127.0.0.1:4222"),
            worker == null ? null : WorkerId.of(worker));
    b.replayEndpoint(v.get("--replay"));
    String engine = v.get("--engine");
    if (engine != null) {
      b.engine(engine.toLowerCase(Locale.ROOT));
    }
    v.integer("--block-size").ifPresent(b::blockSize);
    v.integer("--dp-size").ifPresent(b::dpSize);
    String pool = v.get("--pool");
    if (pool != null) {
      b.pool(pool);
    }
    try {
      b.auth(
          new NatsAuth(
              v.get("--nats-user"),
              path(v.get("--nats-password-file")),
              path(v.get("--nats-creds")),
              path(v.get("--nats-tls-ca")),
              path(v.get("--nats-tls-cert")),
              path(v.get("--nats-tls-key"))));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--nats-*: " + e.getMessage(), e);
    }
    String prefix = v.get("--subject-prefix");
    if (prefix != null) {
      b.subjectPrefix(prefix);
    }
    String stream = v.get("--stream");
    if (stream != null) {
      b.stream(stream);
    }
    String bucket = v.get("--snapshot-bucket");
    if (bucket != null) {
      b.snapshotBucket(bucket);
    }
    v.longValue("--snapshot-every-events").ifPresent(b::snapshotEveryEvents);
    String every = v.get("--snapshot-every");
    if (every != null) {
      b.snapshotEvery(v.duration("--snapshot-every", every));
    }
    v.integer("--buffer").ifPresent(b::bufferBatches);
    v.longValue("--buffer-bytes").ifPresent(b::bufferBytes);
    try {
      return b.build();
    } catch (RelayOptions.InvalidOption e) {
      throw new IllegalArgumentException(v.describe("--" + e.key()) + " " + e.reason(), e);
    }
  }

  private static Path path(String s) {
    return s == null ? null : Path.of(s);
  }

  private static String nonBlank(String s) {
    return s == null || s.isBlank() ? null : s.strip();
  }

  /** A flag's value from the command line or the environment, remembering where it came from. */
  private static final class Values {
    private final Map<String, String> flags;
    private final Map<String, String> env;

    Values(Map<String, String> flags, Map<String, String> env) {
      this.flags = flags;
      this.env = env;
    }

    String get(String flag) {
      String f = flags.get(flag);
      if (f != null) {
        return f;
      }
      return nonBlank(env.get(envName(flag)));
    }

    String getOr(String flag, String dflt) {
      String v = get(flag);
      return v == null ? dflt : v;
    }

    /** {@code --flag} or {@code --flag (from INFERA_FLAG)}. */
    String describe(String flag) {
      return flags.containsKey(flag) || env.get(envName(flag)) == null
          ? flag
          : flag + " (from " + envName(flag) + ")";
    }

    OptionalInt integer(String flag) {
      OptionalLong v = longValue(flag);
      if (v.isEmpty()) {
        return OptionalInt.empty();
      }
      if (v.getAsLong() != (int) v.getAsLong()) {
        throw new IllegalArgumentException(describe(flag) + " is out of range: " + v.getAsLong());
      }
      return OptionalInt.of((int) v.getAsLong());
    }

    OptionalLong longValue(String flag) {
      String s = get(flag);
      if (s == null) {
        return OptionalLong.empty();
      }
      try {
        return OptionalLong.of(Long.parseLong(s.strip()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(describe(flag) + " must be an integer, got '" + s + "'");
      }
    }

    Duration duration(String flag, String s) {
      String t = s.strip();
      Matcher m = DURATION.matcher(t);
      try {
        if (m.matches()) {
          double n = Double.parseDouble(m.group(1));
          String unit = m.group(2) == null ? "s" : m.group(2);
          double millis =
              switch (unit) {
                case "ms" -> n;
                case "m" -> n * 60_000;
                case "h" -> n * 3_600_000;
                default -> n * 1000;
              };
          return Duration.ofMillis(Math.round(millis));
        }
        return Duration.parse(t);
      } catch (DateTimeParseException | ArithmeticException e) {
        throw new IllegalArgumentException(
            describe(flag) + " must be a duration like 5s, 500ms or 2m, got '" + s + "'");
      }
    }
  }
}
