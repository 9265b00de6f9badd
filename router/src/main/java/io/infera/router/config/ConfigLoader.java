package io.infera.router.config;

import io.infera.router.config.RouterConfig.Backend;
import io.infera.router.config.RouterConfig.Pool;
import io.infera.router.config.RouterConfig.StaticWorker;
import io.infera.router.config.RouterConfig.TokenizerMode;
import io.infera.router.config.RouterConfig.Transport;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.NatsAuth;
import io.infera.router.tokenize.HubNames;
import io.infera.router.tokenize.TemplateBudget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Builds a {@link RouterConfig} from a RouterConfig YAML file, environment variables and flags —
 * flag &gt; env &gt; file &gt; default — and validates it, naming the key of any bad value.
 */
public final class ConfigLoader {

  /** {@code events.nats.auth.*} and {@code events.nats.tls.*}: paths only, checked together. */
  private static NatsAuth natsAuth(ConfigNode nats) throws ConfigException {
    ConfigNode auth = nats.child("auth");
    auth.only("user", "passwordFile", "credsFile");
    ConfigNode tls = nats.child("tls");
    tls.only("caFile", "certFile", "keyFile");
    try {
      return new NatsAuth(
          auth.string("user", null),
          path(auth.string("passwordFile", null)),
          path(auth.string("credsFile", null)),
          path(tls.string("caFile", null)),
          path(tls.string("certFile", null)),
          path(tls.string("keyFile", null)));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("events.nats.auth/tls: " + e.getMessage());
    }
  }

  /**
   * {@code policy.overlapWeightMode}; unset, it is {@code fixed} when a weight is given (a weight
   * the user sets holds) and {@code auto} otherwise. {@code auto} with a weight is refused: the
   * starting point is {@code policy.tuner.initialWeight}.
   */
  private static OverlapWeightMode weightMode(ConfigNode pol, Double pw, Double dw)
      throws ConfigException {
    boolean weightGiven = pol.map.get("overlapWeight") != null || pw != null || dw != null;
    String raw = pol.string("overlapWeightMode", null);
    if (raw == null) {
      return weightGiven ? OverlapWeightMode.FIXED : OverlapWeightMode.AUTO;
    }
    OverlapWeightMode mode;
    try {
      mode = OverlapWeightMode.parse(raw);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("policy.overlapWeightMode: " + e.getMessage());
    }
    if (mode == OverlapWeightMode.AUTO && weightGiven) {
      throw new ConfigException(
          "policy.overlapWeightMode: auto tunes the weight, so policy.overlapWeight,"
              + " prefillOverlapWeight and decodeOverlapWeight must not be set (the tuner starts"
              + " at policy.tuner.initialWeight); use overlapWeightMode: fixed to keep a weight");
    }
    return mode;
  }

  /** {@code policy.tuner.*}. */
  private static TunerConfig tuner(ConfigNode t) throws ConfigException {
    t.only("minWeight", "maxWeight", "initialWeight", "epochRequests");
    TunerConfig d = TunerConfig.defaults();
    try {
      return new TunerConfig(
          t.number("minWeight", d.minWeight()),
          t.number("maxWeight", d.maxWeight()),
          t.number("initialWeight", d.initialWeight()),
          (int)
              t.integer(
                  "epochRequests",
                  d.epochRequests(),
                  TunerConfig.MIN_EPOCH_REQUESTS,
                  TunerConfig.MAX_EPOCH_REQUESTS));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("policy." + e.getMessage());
    }
  }

  private static Path path(String s) {
    return s == null || s.isBlank() ? null : Path.of(s.strip());
  }

  /** Seed-compatible flags and env vars, with the config key each one sets. */
  public static final Map<String, String> FLAG_KEYS =
      Map.ofEntries(
          Map.entry("--router-policy", "policy.name"),
          Map.entry("--kv-overlap-weight", "policy.overlapWeight"),
          Map.entry("--kv-prefill-overlap-weight", "policy.prefillOverlapWeight"),
          Map.entry("--kv-decode-overlap-weight", "policy.decodeOverlapWeight"),
          Map.entry("--decode-input-demand", "policy.decodeInputDemand"),
          Map.entry("--decode-request-weight", "policy.decodeRequestWeight"),
          Map.entry("--pd-prefill-guard-release", "policy.prefillGuardRelease"),
          Map.entry("--session-affinity", "policy.sessionAffinity.mode"),
          Map.entry("--session-affinity-header", "policy.sessionAffinity.header"),
          Map.entry("--router-tokenizer-path", "tokenizer.path"),
          Map.entry("--kv-event-transport", "events.transport"),
          Map.entry("--discovery-backend", "discovery.backend"),
          Map.entry("--block-size", "pageSize"),
          Map.entry("--port", "listen.port"),
          Map.entry("--admin-port", "admin.port"),
          Map.entry("--model", "model"));

  /**
   * Env variables (no flags) for the files holding credentials: the NATS ones named as the relay's,
   * and the admin port's bearer token. The operator passes these so, and a router that does not
   * know them ignores them instead of refusing a key.
   */
  public static final Map<String, String> CREDENTIAL_ENV_KEYS =
      Map.of(
          "INFERA_ADMIN_TOKEN_FILE", "admin.tokenFile",
          "INFERA_NATS_USER", "events.nats.auth.user",
          "INFERA_NATS_PASSWORD_FILE", "events.nats.auth.passwordFile",
          "INFERA_NATS_CREDS", "events.nats.auth.credsFile",
          "INFERA_NATS_TLS_CA", "events.nats.tls.caFile",
          "INFERA_NATS_TLS_CERT", "events.nats.tls.certFile",
          "INFERA_NATS_TLS_KEY", "events.nats.tls.keyFile");

  /** {@code --router-policy} → {@code INFERA_ROUTER_POLICY}, … */
  public static String envName(String flag) {
    return "INFERA_" + flag.substring(2).replace('-', '_').toUpperCase(Locale.ROOT);
  }

  /** Most {@code mustUnderstand} entries a document may list. */
  public static final int MAX_MUST_UNDERSTAND = 64;

  /** A loaded config and the keys the loader ignored (always none when strict). */
  public record Loaded(RouterConfig config, IgnoredKeys ignored) {}

  private ConfigLoader() {}

  /** {@link #read} with {@link Strictness#STRICT}: an unknown key is an error. */
  public static RouterConfig load(Path file, Map<String, String> env, Map<String, String> flags)
      throws ConfigException {
    return read(file, env, flags, Strictness.STRICT).config();
  }

  /**
   * @param file the RouterConfig YAML, or null for defaults only
   * @param env the environment (only the variables of {@link #FLAG_KEYS} are read)
   * @param flags flag name → value, for the flags given on the command line
   * @param strictness what an unknown key in the file is (docs/contracts.md, "Version skew")
   */
  public static Loaded read(
      Path file, Map<String, String> env, Map<String, String> flags, Strictness strictness)
      throws ConfigException {
    Map<String, Object> tree = file == null ? new LinkedHashMap<>() : readYaml(file);
    for (Map.Entry<String, String> f : FLAG_KEYS.entrySet()) {
      String v = env.get(envName(f.getKey()));
      if (v != null && !v.isBlank()) {
        put(tree, f.getValue(), v);
      }
    }
    for (Map.Entry<String, String> e : CREDENTIAL_ENV_KEYS.entrySet()) {
      String v = env.get(e.getKey());
      if (v != null && !v.isBlank()) {
        put(tree, e.getValue(), v);
      }
    }
    for (Map.Entry<String, String> f : flags.entrySet()) {
      String key = FLAG_KEYS.get(f.getKey());
      if (key == null) {
        throw new ConfigException("unknown flag " + f.getKey());
      }
      if (f.getValue() != null) {
        put(tree, key, f.getValue());
      }
    }
    return parse(tree, strictness);
  }

  /** Parses a YAML document strictly (for tests and the operator's golden files). */
  public static RouterConfig parse(String yaml) throws ConfigException {
    return parse(yaml, Strictness.STRICT).config();
  }

  /** Parses a YAML document; {@code strictness} decides what an unknown key is. */
  public static Loaded parse(String yaml, Strictness strictness) throws ConfigException {
    return parse(yamlTree(yaml, "config"), strictness);
  }

  private static Map<String, Object> readYaml(Path file) throws ConfigException {
    try {
      return yamlTree(Files.readString(file), file.toString());
    } catch (NoSuchFileException e) {
      throw new ConfigException("config file " + file + " does not exist");
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> yamlTree(String text, String where) throws ConfigException {
    LoaderOptions opts = new LoaderOptions();
    opts.setAllowDuplicateKeys(false);
    opts.setMaxAliasesForCollections(20);
    opts.setCodePointLimit(4 * 1024 * 1024);
    Object v;
    try {
      v = new Yaml(new SafeConstructor(opts)).load(text);
    } catch (RuntimeException e) {
      // Not only YAMLException: an explicit tag on the wrong node (!!binary with bad base64,
      // !!float x, !!set [a]) fails with IllegalArgumentException or ClassCastException.
      String msg = e.getMessage() == null ? e.toString() : e.getMessage().replace('\n', ' ');
      throw new ConfigException(where + ": invalid YAML: " + msg);
    }
    if (v == null) {
      return new LinkedHashMap<>();
    }
    if (!(v instanceof Map)) {
      throw new ConfigException(where + ": a RouterConfig must be a YAML mapping");
    }
    return stringKeys((Map<Object, Object>) v, "");
  }

  /** Checks that every mapping key (recursively) is a string. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> stringKeys(Map<Object, Object> m, String path)
      throws ConfigException {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<Object, Object> e : m.entrySet()) {
      if (!(e.getKey() instanceof String k)) {
        throw new ConfigException(
            (path.isEmpty() ? "" : path) + String.valueOf(e.getKey()) + ": keys must be strings");
      }
      Object v = e.getValue();
      if (v instanceof Map<?, ?> child) {
        v = stringKeys((Map<Object, Object>) child, path + k + ".");
      } else if (v instanceof List<?> list) {
        List<Object> copy = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
          Object item = list.get(i);
          copy.add(
              item instanceof Map<?, ?> im
                  ? stringKeys((Map<Object, Object>) im, path + k + "[" + i + "].")
                  : item);
        }
        v = copy;
      }
      out.put(k, v);
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static void put(Map<String, Object> tree, String dotted, Object value) {
    String[] parts = dotted.split("\\.");
    Map<String, Object> m = tree;
    for (int i = 0; i < parts.length - 1; i++) {
      Object next = m.get(parts[i]);
      if (!(next instanceof Map)) {
        next = new LinkedHashMap<String, Object>();
        m.put(parts[i], next);
      } else {
        next = new LinkedHashMap<>((Map<String, Object>) next);
        m.put(parts[i], next);
      }
      m = (Map<String, Object>) next;
    }
    m.put(parts[parts.length - 1], value);
  }

  // ------------------------------------------------------------------ typed parsing

  private static Loaded parse(Map<String, Object> root, Strictness strictness)
      throws ConfigException {
    ConfigNode.Unknown unknown =
        new ConfigNode.Unknown(strictness, mustUnderstand(new ConfigNode("", root, null)));
    ConfigNode n = new ConfigNode("", root, unknown);
    n.only(
        "apiVersion",
        "kind",
        "mustUnderstand",
        "model",
        "loraAdapters",
        "pageSize",
        "tokenizer",
        "policy",
        "events",
        "discovery",
        "limits",
        "listen",
        "index",
        "admin");
    String apiVersion = n.string("apiVersion", "infera.io/v1alpha1");
    if (!apiVersion.equals("infera.io/v1alpha1")) {
      throw new ConfigException("apiVersion: expected infera.io/v1alpha1, got " + apiVersion);
    }
    String kind = n.string("kind", "RouterConfig");
    if (!kind.equals("RouterConfig")) {
      throw new ConfigException("kind: expected RouterConfig, got " + kind);
    }
    String model = n.string("model", null);
    if (model == null || model.isBlank()) {
      throw new ConfigException("model: required (the served model name)");
    }
    List<String> loras = n.stringList("loraAdapters");
    int pageSize = (int) n.integer("pageSize", 16, 1, 4096);

    ConfigNode tok = n.child("tokenizer");
    tok.only("path", "hub", "mode", "prefixReuse", "revision", "parity");
    String path = tok.string("path", tok.string("hub", null));
    TokenizerMode mode = tok.enumValue("mode", TokenizerMode.class, TokenizerMode.LOCAL);
    if (mode == TokenizerMode.LOCAL && path == null) {
      throw new ConfigException(
          "tokenizer.path: required with tokenizer.mode local (a directory, tokenizer.json, hub"
              + " id or builtin:qwen3; or set tokenizer.mode: engine)");
    }
    String revision = tok.string("revision", null);
    if (revision != null && !HubNames.REVISION.matcher(revision).matches()) {
      throw new ConfigException(
          "tokenizer.revision: expected a branch, tag or commit (letters, digits, '.', '_', '-',"
              + " '/' between segments, at most 128 characters), got '"
              + revision
              + "'");
    }
    RouterConfig.Tokenizer tokenizer =
        new RouterConfig.Tokenizer(
            path, mode, tok.bool("prefixReuse", true), revision, parity(tok.child("parity")));

    ConfigNode pol = n.child("policy");
    pol.only(
        "name",
        "overlapWeight",
        "prefillOverlapWeight",
        "decodeOverlapWeight",
        "overlapWeightMode",
        "tuner",
        "engineLoad",
        "load",
        "decodeInputDemand",
        "decodeRequestWeight",
        "prefillGuardRelease",
        "multimodal",
        "sessionAffinity");
    PolicyName policyName;
    String pname = pol.string("name", "kv-aware");
    try {
      policyName = PolicyName.parse(pname);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("policy.name: " + e.getMessage());
    }
    double w = pol.number("overlapWeight", PolicyConfig.DEFAULT_OVERLAP_WEIGHT);
    Double pw = pol.optNumber("prefillOverlapWeight");
    Double dw = pol.optNumber("decodeOverlapWeight");
    OverlapWeightMode weightMode = weightMode(pol, pw, dw);
    TunerConfig tuner = tuner(pol.child("tuner"));
    LoadModel loadModel = loadModel(pol.child("load"));
    PolicyConfig policy;
    try {
      policy = new PolicyConfig(policyName, w, pw, dw, weightMode, tuner, loadModel);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("policy." + e.getMessage());
    }

    ConfigNode ev = n.child("events");
    ev.only("transport", "nats", "inprocBus", "resetsPerMinute", "resetsBurst");
    Transport transport = ev.enumValue("transport", Transport.class, Transport.ZMQ);
    ConfigNode nats = ev.child("nats");
    nats.only(
        "url",
        "stream",
        "subjectPrefix",
        "snapshotBucket",
        "shareLoad",
        "outageReadyAfterMs",
        "auth",
        "tls");
    RouterConfig.Nats natsCfg =
        new RouterConfig.Nats(
            nats.string("url", "nats://127.0.0.1:4222"),
            nats.string("stream", "INFERA_KV_EVENTS"),
            nats.string("subjectPrefix", "infera.kv.events"),
            nats.string("snapshotBucket", "infera_kv_snapshots"),
            nats.bool("shareLoad", true),
            nats.integer(
                "outageReadyAfterMs",
                RouterConfig.Nats.DEFAULT_OUTAGE_READY_AFTER_MS,
                0,
                86_400_000),
            natsAuth(nats));
    RouterConfig.Events events =
        new RouterConfig.Events(transport, natsCfg, ev.string("inprocBus", "default"));

    ConfigNode disc = n.child("discovery");
    disc.only("backend", "namespace", "pools", "workers", "healthIntervalMs");
    Backend backend = disc.enumValue("backend", Backend.class, Backend.STATIC);
    List<Pool> pools = new ArrayList<>();
    java.util.Set<String> optOutPools = new java.util.HashSet<>();
    java.util.Set<String> optOutWorkers = new java.util.HashSet<>();
    for (ConfigNode p : disc.list("pools")) {
      p.only(
          "name",
          "role",
          "engine",
          "service",
          "port",
          "zmqPort",
          "zmqReplayPort",
          "dpSize",
          "engineLoad");
      String name = poolName(p, p.required("name"), "name");
      if (!p.bool("engineLoad", true)) {
        optOutPools.add(name);
      }
      pools.add(
          new Pool(
              name,
              p.role("role", Role.MIXED),
              engine(p),
              p.string("service", name),
              (int) p.integer("port", 8000, 1, 65535),
              (int) p.integer("zmqPort", 5557, 0, 65535),
              (int) p.integer("zmqReplayPort", 0, 0, 65535),
              (int) p.integer("dpSize", 1, 1, 1024)));
    }
    List<StaticWorker> workers = new ArrayList<>();
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (ConfigNode wk : disc.list("workers")) {
      wk.only("id", "url", "role", "engine", "zmq", "zmqReplay", "dpSize", "pool", "engineLoad");
      String id = wk.required("id");
      if (!ids.add(id)) {
        throw new ConfigException(wk.path + "id: duplicate worker id '" + id + "'");
      }
      if (!wk.bool("engineLoad", true)) {
        optOutWorkers.add(id);
      }
      String url = wk.required("url");
      if (!url.startsWith("http://") && !url.startsWith("https://")) {
        throw new ConfigException(wk.path + "url: expected http(s)://host:port, got " + url);
      }
      workers.add(
          new StaticWorker(
              id,
              url.endsWith("/") ? url.substring(0, url.length() - 1) : url,
              wk.role("role", Role.MIXED),
              engine(wk),
              wk.string("zmq", null),
              wk.string("zmqReplay", null),
              (int) wk.integer("dpSize", 1, 1, 1024),
              workerPool(wk)));
    }
    if (backend == Backend.KUBERNETES && pools.isEmpty()) {
      throw new ConfigException("discovery.pools: the kubernetes backend needs at least one pool");
    }
    if (backend == Backend.STATIC && workers.isEmpty()) {
      throw new ConfigException("discovery.workers: the static backend needs at least one worker");
    }
    RouterConfig.Discovery discovery =
        new RouterConfig.Discovery(
            backend,
            disc.string("namespace", null),
            pools,
            workers,
            disc.integer("healthIntervalMs", 2000, 100, 3_600_000));

    ConfigNode lim = n.child("limits");
    lim.only(
        "maxBodyBytes",
        "retries",
        "connectTimeoutMs",
        "firstByteTimeoutMs",
        "shutdownTimeoutMs",
        "breakerFailures",
        "breakerCooldownMs",
        "breakerMaxCooldownMs",
        // tokenization and analysis budget
        "tokenizeMaxChars",
        "tokenizeMaxPieceChars",
        "analysisInFlightBytes",
        "analysisConcurrency",
        "analysisQueue",
        // HTTP server limits (RouterConfig.ServerLimits)
        "idleTimeoutMs",
        "headerTimeoutMs",
        "bodyTimeoutMs",
        "maxConnections",
        "maxInFlight",
        "templateOutputChars",
        "templateOutputPerInputChar",
        "templateSteps",
        "templateStepsPerInputChar",
        "templateMaxDepth");
    TemplateBudget tb = TemplateBudget.DEFAULTS;
    TemplateBudget templateBudget =
        new TemplateBudget(
            lim.integer("templateOutputChars", tb.outputChars(), 1024, 1L << 30),
            lim.integer("templateOutputPerInputChar", tb.outputPerInputChar(), 0, 64),
            lim.integer("templateSteps", tb.steps(), 1000, 1L << 40),
            lim.integer("templateStepsPerInputChar", tb.stepsPerInputChar(), 0, 4096),
            (int) lim.integer("templateMaxDepth", tb.maxDepth(), 1, 10_000));
    RouterConfig.Limits limits =
        new RouterConfig.Limits(
            lim.integer("maxBodyBytes", 64L << 20, 1024, 1L << 31),
            (int) lim.integer("retries", 1, 0, 10),
            lim.integer("connectTimeoutMs", 2000, 1, 600_000),
            lim.integer("firstByteTimeoutMs", 300_000, 1, 3_600_000),
            lim.integer("shutdownTimeoutMs", 30_000, 0, 3_600_000),
            (int) lim.integer("breakerFailures", 3, 1, 1000),
            lim.integer("breakerCooldownMs", 1000, 1, 3_600_000),
            lim.integer("breakerMaxCooldownMs", 30_000, 1, 3_600_000),
            new RouterConfig.Analysis(
                (int)
                    lim.integer(
                        "tokenizeMaxChars",
                        RouterConfig.Analysis.DEFAULT_TOKENIZE_MAX_CHARS,
                        0,
                        Integer.MAX_VALUE - 16),
                (int)
                    lim.integer(
                        "tokenizeMaxPieceChars",
                        RouterConfig.Analysis.DEFAULT_TOKENIZE_MAX_PIECE_CHARS,
                        1024,
                        64 << 20),
                lim.integer(
                    "analysisInFlightBytes",
                    RouterConfig.Analysis.DEFAULT_IN_FLIGHT_BYTES,
                    1024,
                    1L << 40),
                (int)
                    lim.integer(
                        "analysisConcurrency", RouterConfig.Analysis.defaultConcurrency(), 1, 1024),
                (int)
                    lim.integer(
                        "analysisQueue", RouterConfig.Analysis.DEFAULT_QUEUE, 0, 1_000_000)),
            templateBudget);

    ConfigNode listen = n.child("listen");
    listen.only("host", "port");
    RouterConfig.Listen listenCfg =
        new RouterConfig.Listen(
            listen.string("host", "0.0.0.0"), (int) listen.integer("port", 8000, 0, 65535));

    RouterConfig.ServerLimits d = RouterConfig.ServerLimits.DEFAULTS;
    RouterConfig.ServerLimits server =
        new RouterConfig.ServerLimits(
            lim.integer("idleTimeoutMs", d.idleTimeoutMs(), 100, 3_600_000),
            lim.integer("headerTimeoutMs", d.headerTimeoutMs(), 100, 600_000),
            lim.integer("bodyTimeoutMs", d.bodyTimeoutMs(), 100, 3_600_000),
            (int) lim.integer("maxConnections", d.maxConnections(), 1, 1_000_000),
            (int) lim.integer("maxInFlight", d.maxInFlight(), 1, 1_000_000));

    RouterConfig.Admin admin = admin(n.child("admin"), listenCfg);

    RouterConfig.Index index = index(n.child("index"), ev);

    return new Loaded(
        new RouterConfig(
            model,
            loras,
            pageSize,
            tokenizer,
            policy,
            events,
            discovery,
            limits,
            listenCfg,
            index,
            server,
            admin,
            engineLoad(pol.child("engineLoad"), optOutWorkers, optOutPools),
            decodeDemand(pol, policyName),
            multimodal(pol.child("multimodal")),
            sessionAffinity(pol.child("sessionAffinity"))),
        unknown.result());
  }

  /**
   * {@code policy.decodeInputDemand}, {@code policy.decodeRequestWeight} and {@code
   * policy.prefillGuardRelease}. YAML reads an unquoted {@code off} / {@code on} as a boolean:
   * false is off and true is on.
   */
  private static DecodeDemandConfig decodeDemand(ConfigNode pol, PolicyName policy)
      throws ConfigException {
    Object raw = pol.map.get("decodeInputDemand");
    DecodeDemandConfig.Mode mode;
    if (raw == null) {
      mode = DecodeDemandConfig.DEFAULTS.mode();
    } else if (raw instanceof Boolean b) {
      mode = b ? DecodeDemandConfig.Mode.ON : DecodeDemandConfig.Mode.OFF;
    } else if (raw instanceof String s) {
      try {
        mode = DecodeDemandConfig.Mode.parse(s);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("policy.decodeInputDemand: " + e.getMessage());
      }
    } else {
      throw new ConfigException(
          "policy.decodeInputDemand: expected off, shadow or on, got '" + raw + "'");
    }
    if (mode != DecodeDemandConfig.Mode.OFF && policy != PolicyName.KV_AWARE) {
      throw new ConfigException(
          "policy.decodeInputDemand: "
              + mode.wire()
              + " requires policy.name kv-aware, got "
              + policy.wireName());
    }
    String release = pol.string("prefillGuardRelease", null);
    DecodeDemandConfig.GuardRelease guard = DecodeDemandConfig.DEFAULTS.prefillGuardRelease();
    if (release != null) {
      try {
        guard = DecodeDemandConfig.GuardRelease.parse(release);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("policy.prefillGuardRelease: " + e.getMessage());
      }
    }
    double weight = pol.number("decodeRequestWeight", 0);
    try {
      return new DecodeDemandConfig(mode, weight, guard);
    } catch (IllegalArgumentException e) {
      throw new ConfigException("policy." + e.getMessage());
    }
  }

  /** {@code policy.multimodal.*}: the image-affinity memory per worker. */
  private static MultimodalConfig multimodal(ConfigNode m) throws ConfigException {
    m.only("affinityEntries");
    return new MultimodalConfig(
        (int)
            m.integer(
                "affinityEntries",
                MultimodalConfig.DEFAULT_AFFINITY_ENTRIES,
                1,
                MultimodalConfig.MAX_AFFINITY_ENTRIES));
  }

  /**
   * {@code policy.sessionAffinity.*}. YAML 1.1 reads a bare {@code off} as the boolean false, so
   * false is accepted as {@code off}; an empty {@code header} turns the header source off.
   */
  private static SessionAffinityConfig sessionAffinity(ConfigNode s) throws ConfigException {
    s.only("mode", "header", "maxSessions", "ttlMs", "maxKeyBytes");
    SessionAffinityConfig d = SessionAffinityConfig.DEFAULTS;
    Object rawMode = s.map.get("mode");
    SessionAffinityConfig.Mode mode;
    if (rawMode == null || Boolean.FALSE.equals(rawMode)) {
      mode = d.mode();
    } else if (rawMode instanceof String m) {
      try {
        mode = SessionAffinityConfig.Mode.parse(m);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("policy.sessionAffinity.mode: " + e.getMessage());
      }
    } else {
      throw new ConfigException(
          "policy.sessionAffinity.mode: expected off, prefill or both, got " + rawMode);
    }
    String header = s.string("header", d.header());
    try {
      return new SessionAffinityConfig(
          mode,
          header == null || header.isBlank() ? null : header.strip(),
          (int)
              s.integer("maxSessions", d.maxSessions(), 1, SessionAffinityConfig.MAX_MAX_SESSIONS),
          s.integer("ttlMs", d.ttlMs(), 1000, 7 * 86_400_000L),
          (int)
              s.integer(
                  "maxKeyBytes", d.maxKeyBytes(), 1, SessionAffinityConfig.MAX_MAX_KEY_BYTES));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("policy.sessionAffinity." + e.getMessage());
    }
  }

  /** {@code tokenizer.parity.*}. */
  private static ParityConfig parity(ConfigNode p) throws ConfigException {
    p.only("enabled", "intervalMs", "timeoutMs", "maxAnswerBytes");
    return new ParityConfig(
        p.bool("enabled", ParityConfig.DEFAULT_ENABLED),
        p.integer("intervalMs", ParityConfig.DEFAULT_INTERVAL_MS, 1000, 86_400_000),
        p.integer("timeoutMs", ParityConfig.DEFAULT_TIMEOUT_MS, 10, 600_000),
        p.integer("maxAnswerBytes", ParityConfig.DEFAULT_MAX_ANSWER_BYTES, 1024, 64L << 20));
  }

  /** {@code policy.engineLoad.*} plus the per-pool and per-worker opt-outs. */
  private static EngineLoadConfig engineLoad(
      ConfigNode e, java.util.Set<String> optOutWorkers, java.util.Set<String> optOutPools)
      throws ConfigException {
    e.only("enabled", "intervalMs", "timeoutMs", "maxStalenessMs", "weight", "maxBodyBytes");
    long interval = e.integer("intervalMs", EngineLoadConfig.DEFAULT_INTERVAL_MS, 10, 3_600_000);
    long timeout = e.integer("timeoutMs", EngineLoadConfig.DEFAULT_TIMEOUT_MS, 10, 600_000);
    long staleness =
        e.integer("maxStalenessMs", EngineLoadConfig.DEFAULT_MAX_STALENESS_MS, 10, 86_400_000);
    if (staleness < interval) {
      throw new ConfigException(
          "policy.engineLoad.maxStalenessMs: "
              + staleness
              + " is below policy.engineLoad.intervalMs ("
              + interval
              + "): every snapshot would be stale before the next scrape");
    }
    double weight = e.number("weight", EngineLoadConfig.DEFAULT_WEIGHT);
    if (!Double.isFinite(weight) || weight < 0 || weight > 1000) {
      throw new ConfigException(
          "policy.engineLoad.weight: expected a finite number in [0, 1000], got " + weight);
    }
    return new EngineLoadConfig(
        e.bool("enabled", EngineLoadConfig.DEFAULT_ENABLED),
        interval,
        timeout,
        staleness,
        weight,
        e.integer("maxBodyBytes", EngineLoadConfig.DEFAULT_MAX_BODY_BYTES, 1024, 64L << 20),
        optOutWorkers,
        optOutPools);
  }

  /** {@code policy.load.*}: the load model's starting prefill rate and whether it learns. */
  private static LoadModel loadModel(ConfigNode l) throws ConfigException {
    l.only("prefillBlocksPerSecond", "learnRate");
    double rate = l.number("prefillBlocksPerSecond", LoadModel.DEFAULT_PREFILL_BLOCKS_PER_SECOND);
    if (!(rate > 0) || rate > LoadModel.MAX_PREFILL_BLOCKS_PER_SECOND) {
      throw new ConfigException(
          "policy.load.prefillBlocksPerSecond: "
              + rate
              + " is outside (0, "
              + (long) LoadModel.MAX_PREFILL_BLOCKS_PER_SECOND
              + "]");
    }
    return new LoadModel(rate, l.bool("learnRate", LoadModel.DEFAULTS.learnRate()));
  }

  private static RouterConfig.Admin admin(ConfigNode a, RouterConfig.Listen listen)
      throws ConfigException {
    a.only("host", "port", "tokenFile", "explain", "cacheHitHeader");
    RouterConfig.Admin d = RouterConfig.Admin.defaultsFor(listen);
    int port = (int) a.integer("port", d.port(), 0, 65535);
    if (port != 0 && port == listen.port()) {
      throw new ConfigException(
          "admin.port: " + port + " is listen.port; the admin endpoints need a port of their own");
    }
    String tokenFile = a.string("tokenFile", null);
    if (tokenFile != null && tokenFile.isBlank()) {
      throw new ConfigException("admin.tokenFile: empty (leave it out for no token)");
    }
    return new RouterConfig.Admin(
        a.string("host", d.host()),
        port,
        tokenFile,
        a.bool("explain", d.explain()),
        a.bool("cacheHitHeader", d.cacheHitHeader()));
  }

  /** {@code index.*} and {@code events.resets*}: the prefix index's caps and reset rate. */
  private static RouterConfig.Index index(ConfigNode idx, ConfigNode ev) throws ConfigException {
    idx.only("maxBlocksPerSource", "maxBlocks", "accuracy");
    RouterConfig.Index d = RouterConfig.Index.defaults();
    long perSource = idx.integer("maxBlocksPerSource", d.maxBlocksPerSource(), 1, 1L << 30);
    long total = idx.integer("maxBlocks", d.maxBlocks(), 1, 1L << 34);
    double perMinute = ev.number("resetsPerMinute", d.resetsPerMinute());
    if (!(perMinute > 0) || perMinute > 1e6) {
      throw new ConfigException("events.resetsPerMinute: " + perMinute + " is outside (0, 1e6]");
    }
    int burst = (int) ev.integer("resetsBurst", d.resetsBurst(), 1, 1000);
    return new RouterConfig.Index(
        perSource, total, perMinute, burst, accuracy(idx.child("accuracy")));
  }

  /** {@code index.accuracy.*}: the {@code IndexAccurate} condition's window and thresholds. */
  private static RouterConfig.Index.Accuracy accuracy(ConfigNode a) throws ConfigException {
    a.only("window", "windowSeconds", "minSamples", "minPrecision", "minRecall");
    RouterConfig.Index.Accuracy d = RouterConfig.Index.Accuracy.DEFAULTS;
    int window = (int) a.integer("window", d.window(), 1, 65536);
    long seconds = a.integer("windowSeconds", d.windowSeconds(), 1, 86400);
    int minSamples = (int) a.integer("minSamples", d.minSamples(), 1, 65536);
    if (minSamples > window) {
      throw new ConfigException(
          "index.accuracy.minSamples: "
              + minSamples
              + " is more than index.accuracy.window ("
              + window
              + "): the condition could never leave Unknown");
    }
    return new RouterConfig.Index.Accuracy(
        window,
        seconds,
        minSamples,
        fraction(a, "minPrecision", d.minPrecision()),
        fraction(a, "minRecall", d.minRecall()));
  }

  private static double fraction(ConfigNode a, String key, double dflt) throws ConfigException {
    double v = a.number(key, dflt);
    if (!(v >= 0 && v <= 1)) {
      throw new ConfigException(a.path + key + ": " + v + " is outside [0, 1]");
    }
    return v;
  }

  /**
   * The keys a writer says must not be ignored, e.g. {@code discovery.pools[].tls}: a router that
   * does not know one refuses the document instead of running without the feature.
   */
  private static java.util.Set<String> mustUnderstand(ConfigNode root) throws ConfigException {
    List<String> entries = root.stringList("mustUnderstand");
    if (entries.size() > MAX_MUST_UNDERSTAND) {
      throw new ConfigException(
          "mustUnderstand: " + entries.size() + " entries, at most " + MAX_MUST_UNDERSTAND);
    }
    java.util.Set<String> out = new java.util.HashSet<>();
    for (String e : entries) {
      if (e.isBlank()
          || e.length() > ConfigNode.MAX_KEY_PATH
          || !e.matches("[A-Za-z0-9_-]+(\\[\\d*])?(\\.[A-Za-z0-9_-]+(\\[\\d*])?)*")) {
        throw new ConfigException(
            "mustUnderstand: '"
                + IgnoredKeys.printable(e)
                + "' is not a key path (such as discovery.pools[].port)");
      }
      out.add(ConfigNode.generic(e));
    }
    return out;
  }

  /**
   * Engines whose KV events and hand-over the router knows ({@code sim} speaks vLLM's; {@code
   * atom}: docs/atom.md).
   */
  static final java.util.Set<String> ENGINES = java.util.Set.of("vllm", "sglang", "atom", "sim");

  /** A pool's or worker's {@code engine}: {@code vllm} unless set, one of {@link #ENGINES}. */
  private static String engine(ConfigNode node) throws ConfigException {
    String engine = node.string("engine", "vllm");
    if (!ENGINES.contains(engine)) {
      throw new ConfigException(
          node.path + "engine: expected vllm, sglang, atom or sim, got '" + engine + "'");
    }
    return engine;
  }

  /** A static worker's {@code pool}: its relay's {@code --pool}, {@code static} unless set. */
  private static String workerPool(ConfigNode wk) throws ConfigException {
    return poolName(wk, wk.string("pool", EventSubjects.DEFAULT_POOL), "pool");
  }

  /** {@code pool} when it can be a NATS subject token, else a ConfigException at {@code key}. */
  private static String poolName(ConfigNode node, String pool, String key) throws ConfigException {
    if (!EventSubjects.validPool(pool)) {
      throw new ConfigException(
          node.path
              + key
              + ": '"
              + pool
              + "' must be 1-"
              + EventSubjects.MAX_POOL_LENGTH
              + " letters, digits, '-' or '_' (it is a NATS subject token)");
    }
    return pool;
  }
}
