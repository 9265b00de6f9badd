package io.infera.operator.desired;

import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.TokenizerMode;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import io.infera.operator.desired.RenderInputs.RouterSettings;
import io.infera.operator.desired.RenderInputs.SessionAffinitySettings;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The RouterConfig document (docs/contracts.md, "RouterConfig") the router reads from its
 * ConfigMap: the operator → router contract. Only keys the router's {@code ConfigLoader} accepts;
 * golden examples in {@code config/router/}.
 *
 * <p>Version skew (docs/contracts.md, "Version skew"): a router one release older than this
 * operator must start on what it writes. So every key added after a release is written only when
 * the resource uses its feature ({@link #putIfSet}: unset or at the router's default, it is left
 * out), and a spec that uses no new feature yields only keys the previous router knows ({@code
 * UpgradeFromPreviousReleaseTest} checks that against the previous router's key list). A new key
 * whose absence would be unsafe is also listed under {@code mustUnderstand}, so a router that does
 * not know it refuses the document instead of running without it.
 */
public final class DesiredRouterConfig {

  public static final String KIND = "RouterConfig";

  private DesiredRouterConfig() {}

  /** The document as YAML, with a one-line header naming its source. */
  public static String yaml(RenderInputs in) {
    DumperOptions opts = new DumperOptions();
    opts.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    opts.setIndent(2);
    opts.setIndicatorIndent(0);
    opts.setWidth(200);
    opts.setSplitLines(false);
    return "# RouterConfig of InferaDeployment "
        + in.namespace()
        + "/"
        + in.name()
        + ", written by infera-operator.\n"
        + new Yaml(opts).dump(document(in));
  }

  /** SHA-256 of {@link #yaml}, hex: the router pod template's config-hash annotation. */
  public static String hash(RenderInputs in) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(yaml(in).getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** The document as ordered maps (key order as in docs/contracts.md, "RouterConfig"). */
  public static Map<String, Object> document(RenderInputs in) {
    RouterSettings r = in.router();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("apiVersion", InferaDeployment.API_VERSION);
    doc.put("kind", KIND);
    doc.put("model", in.model());
    doc.put("pageSize", in.pageSize());

    Map<String, Object> tokenizer = new LinkedHashMap<>();
    if (r.tokenizer().mode() == TokenizerMode.LOCAL) {
      tokenizer.put(r.tokenizer().hub() ? "hub" : "path", r.tokenizer().source());
      // Unset, the router reads refs/main and else the newest snapshot: not the same as "main".
      putIfSet(tokenizer, "revision", r.tokenizer().revision(), null);
    }
    tokenizer.put("mode", r.tokenizer().mode().value());
    doc.put("tokenizer", tokenizer);

    Map<String, Object> policy = new LinkedHashMap<>();
    policy.put("name", r.policy().value());
    putIfNotEmpty(policy, "sessionAffinity", sessionAffinity(r.sessionAffinity()));
    // Unset, the router tunes the weight online (a weight written here would mean a fixed one).
    putIfSet(policy, "overlapWeight", r.overlapWeight(), null);
    putIfSet(policy, "prefillOverlapWeight", r.prefillOverlapWeight(), null);
    putIfSet(policy, "decodeOverlapWeight", r.decodeOverlapWeight(), null);
    // Added after the previous release: written only when set and not the router's default.
    putIfSet(
        policy,
        "decodeInputDemand",
        r.decodeInputDemand() == null ? null : r.decodeInputDemand().value(),
        "off");
    // + 0.0: a -0.0 is the default too.
    putIfSet(
        policy,
        "decodeRequestWeight",
        r.decodeRequestWeight() == null ? null : r.decodeRequestWeight() + 0.0,
        0.0);
    putIfSet(
        policy,
        "prefillGuardRelease",
        r.prefillGuardRelease() == null ? null : r.prefillGuardRelease().value(),
        "decode");
    Map<String, Object> multimodal = new LinkedHashMap<>();
    putIfSet(multimodal, "affinityEntries", r.multimodalAffinityEntries(), 1024);
    putIfNotEmpty(policy, "multimodal", multimodal);
    doc.put("policy", policy);

    Map<String, Object> nats = new LinkedHashMap<>();
    nats.put("url", in.natsUrl());
    nats.put("stream", in.nats().stream());
    nats.put("subjectPrefix", in.nats().subjectPrefix());
    nats.put("snapshotBucket", in.nats().snapshotBucket());
    // The credentials (events.nats.auth.*, events.nats.tls.*) reach the router as env variables
    // (DesiredRouter, NatsCredentials.routerEnv): a router of the previous release ignores them
    // (and is refused by an authenticating NATS: it routes by load) instead of refusing a key.
    Map<String, Object> events = new LinkedHashMap<>();
    events.put("transport", "nats");
    events.put("nats", nats);
    doc.put("events", events);

    List<Object> pools = new ArrayList<>();
    for (PoolSettings p : in.pools()) {
      Map<String, Object> pool = new LinkedHashMap<>();
      pool.put("name", p.name());
      pool.put("role", p.role().value());
      pool.put("engine", in.engine().eventFormat());
      pool.put("service", Names.pool(in.name(), p.name()));
      pool.put("port", Defaults.ENGINE_PORT);
      pool.put("zmqPort", Defaults.ZMQ_PORT);
      // Omitted at the router's default 1; the router then expects one rank per port + r.
      putIfSet(pool, "dpSize", p.dataParallelSize(), 1);
      pools.add(pool);
    }
    Map<String, Object> discovery = new LinkedHashMap<>();
    discovery.put("backend", "kubernetes");
    discovery.put("namespace", in.namespace());
    discovery.put("pools", pools);
    doc.put("discovery", discovery);

    if (r.indexMaxBlocks() != null) {
      Map<String, Object> index = new LinkedHashMap<>();
      index.put("maxBlocks", r.indexMaxBlocks());
      doc.put("index", index);
    }

    Map<String, Object> limits = new LinkedHashMap<>();
    limits.put("maxBodyBytes", Defaults.ROUTER_MAX_BODY_BYTES);
    limits.put("retries", Defaults.ROUTER_RETRIES);
    doc.put("limits", limits);

    Map<String, Object> listen = new LinkedHashMap<>();
    listen.put("port", Defaults.ROUTER_PORT);
    doc.put("listen", listen);

    // No admin keys: the router's admin port defaults to Defaults.ROUTER_ADMIN_PORT, and
    // admin.tokenFile (the mounted ADMIN_TOKEN_PATH) would make a previous router, which refuses
    // unknown keys, exit (docs/operations.md, "Admin port").
    return doc;
  }

  /**
   * {@code policy.sessionAffinity}: the keys the resource sets to other than the router's defaults
   * (SessionAffinityConfig.DEFAULTS), in the order of docs/contracts.md.
   */
  private static Map<String, Object> sessionAffinity(SessionAffinitySettings s) {
    Map<String, Object> out = new LinkedHashMap<>();
    putIfSet(out, "mode", s.mode() == null ? null : s.mode().value(), "off");
    // An empty header is not the default: it turns the header source off.
    putIfSet(out, "header", s.header(), "x-session-id");
    putIfSet(out, "maxSessions", s.maxSessions(), 100_000);
    putIfSet(out, "ttlMs", s.ttlMs(), 1_800_000L);
    putIfSet(out, "maxKeyBytes", s.maxKeyBytes(), 256);
    return out;
  }

  /** Writes a section only when it holds a key. */
  private static void putIfNotEmpty(
      Map<String, Object> parent, String key, Map<String, Object> section) {
    if (!section.isEmpty()) {
      parent.put(key, section);
    }
  }

  /**
   * Writes {@code key} only when {@code value} is set and not the router's default: the rule for
   * every key added after a release, so that a spec not using the feature renders a document the
   * previous router accepts.
   */
  static void putIfSet(
      Map<String, Object> section, String key, Object value, Object routerDefault) {
    if (value != null && !value.equals(routerDefault)) {
      section.put(key, value);
    }
  }
}
