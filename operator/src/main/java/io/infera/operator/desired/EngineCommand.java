package io.infera.operator.desired;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.KvTransferRole;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import io.infera.operator.validation.Violation;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The engine container's command line, derived from the spec, and the check that a pool's own
 * {@code args} do not contradict it.
 *
 * <p>One table of owned flags per engine and role drives both, so a flag the operator emits is
 * always one it defends: the page size (the one block size of the fleet; docs/routing.md,
 * "Pitfalls"), the KV-event endpoints the relay reads and the data-parallel ranks that offset them,
 * the port the router and probes use, the PD role and NIXL role, prefix caching and cached-token
 * reporting. Other spellings the engines' parsers accept ({@code -dp}, SGLang's {@code --dp}) are
 * defended as the flag itself. A contradicting pool argument is refused, never silently overridden
 * (docs/contracts.md, "InferaDeployment").
 *
 * @param command the container's {@code command}, or empty to keep the image's entrypoint
 * @param args the container's {@code args}: derived arguments, then the pool's own
 */
public record EngineCommand(List<String> command, List<String> args) {

  /**
   * Where the engine's KV-event sockets live: loopback only, so that nothing but the pod's relay
   * reads them. vLLM and SGLang bind their PUB socket only for a wildcard, ipc or inproc endpoint
   * and connect to any other, so with this address the engine's PUB connects and the relay's SUB
   * binds ({@code --zmq-mode bind}); the replay ROUTER always binds, here on loopback too.
   */
  public static final String KV_EVENTS_HOST = "127.0.0.1";

  /** vLLM's {@code --kv-events-config}: ZMQ PUB + replay on the ports the relay reads. */
  public static final String VLLM_KV_EVENTS_CONFIG =
      "{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\",\"endpoint\":\"tcp://"
          + KV_EVENTS_HOST
          + ":"
          + Defaults.ZMQ_PORT
          + "\",\"replay_endpoint\":\"tcp://"
          + KV_EVENTS_HOST
          + ":"
          + Defaults.REPLAY_PORT
          + "\",\"topic\":\""
          + Defaults.KV_EVENTS_TOPIC
          + "\"}";

  /** SGLang's {@code --kv-events-config} (its config has no {@code enable_kv_cache_events}). */
  public static final String SGLANG_KV_EVENTS_CONFIG =
      "{\"publisher\":\"zmq\",\"endpoint\":\"tcp://"
          + KV_EVENTS_HOST
          + ":"
          + Defaults.ZMQ_PORT
          + "\",\"replay_endpoint\":\"tcp://"
          + KV_EVENTS_HOST
          + ":"
          + Defaults.REPLAY_PORT
          + "\",\"topic\":\""
          + Defaults.KV_EVENTS_TOPIC
          + "\"}";

  /**
   * ATOM's connector for prefill/decode pools: Mooncake, the one its disaggregation guide starts
   * with (MORI-IO is the other; the router's hand-over is the same for both, docs/atom.md).
   */
  public static final String ATOM_KV_CONNECTOR = "mooncake";

  /** Where {@code dataParallelSize} comes from, for messages. */
  private static final String DP_SOURCE = "spec.pools[].dataParallelSize";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> FALSE_VALUES = Set.of("false", "0", "no", "off");

  public EngineCommand {
    command = List.copyOf(command);
    args = List.copyOf(args);
  }

  /**
   * vLLM prefill/decode pools' {@code --kv-transfer-config}: NIXL moves the KV, the router does the
   * hand-over (a one-token prefill whose {@code kv_transfer_params} go to the decode worker). The
   * role is the pool's ({@link KvTransferRole#forPool}) unless {@code kvTransferRole} overrides it.
   */
  public static String vllmKvTransferConfig(KvTransferRole role) {
    return "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"" + role.value() + "\"}";
  }

  /**
   * ATOM prefill/decode pools' {@code --kv-transfer-config}: the connector moves the KV, the router
   * does the hand-over (a one-token prefill whose {@code kv_transfer_params} go to the decode
   * worker); the role follows the pool ({@link KvTransferRole#forPool}).
   */
  public static String atomKvTransferConfig(PoolRole role) {
    return "{\"kv_connector\":\""
        + ATOM_KV_CONNECTOR
        + "\",\"kv_role\":\""
        + KvTransferRole.forPool(role).value()
        + "\"}";
  }

  /** How the operator owns a flag. */
  private enum Kind {
    /** Takes a value; the pool may repeat the flag only with the same value. */
    VALUE,
    /** A switch the operator turns on; the pool may not turn it off. */
    SWITCH,
    /** Must not appear at all (it would disable something the fleet relies on). */
    FORBIDDEN
  }

  /**
   * @param flag the long flag, e.g. {@code --block-size}
   * @param value the derived value (VALUE only)
   * @param emitted whether the operator puts it on the command line (or only defends it)
   * @param source where the value comes from, for messages
   */
  private record Owned(String flag, Kind kind, String value, boolean emitted, String source) {}

  /** The engine container's command line for {@code pool}. */
  public static EngineCommand of(RenderInputs in, PoolSettings pool) {
    List<String> derived = new ArrayList<>();
    List<String> command;
    switch (in.engine()) {
      case VLLM -> {
        command = List.of("vllm", "serve");
        derived.add(in.model());
      }
      case SGLANG -> command = List.of("python3", "-m", "sglang.launch_server");
      case ATOM -> command = List.of("python3", "-m", "atom.entrypoints.openai_server");
      case SIM -> {
        command = List.of(); // the image's entrypoint is infera-sim
        derived.add("engine");
      }
      default -> throw new IllegalStateException("unknown engine " + in.engine());
    }
    for (Owned o : owned(in, pool).values()) {
      if (!o.emitted()) {
        continue;
      }
      derived.add(o.flag());
      if (o.kind() == Kind.VALUE) {
        derived.add(o.value());
      }
    }
    derived.addAll(pool.args());
    return new EngineCommand(command, derived);
  }

  /**
   * The pool arguments that contradict a derived flag, one violation each, naming the pool and the
   * flag.
   *
   * @param field the pool's args field, e.g. {@code spec.pools[1].args}
   */
  public static List<Violation> contradictions(RenderInputs in, PoolSettings pool, String field) {
    Map<String, Owned> owned = owned(in, pool);
    List<Violation> out = new ArrayList<>();
    List<String> args = pool.args();
    for (int i = 0; i < args.size(); i++) {
      String token = args.get(i).strip();
      if (!isFlag(token)) {
        continue;
      }
      String name = token;
      String inline = null;
      int eq = token.indexOf('=');
      int space = indexOfWhitespace(token);
      if (eq > 0 && (space < 0 || eq < space)) {
        name = token.substring(0, eq);
        inline = token.substring(eq + 1);
      } else if (space > 0) {
        name = token.substring(0, space);
        inline = token.substring(space + 1).strip();
      }
      Owned o = owned.get(name.replace('_', '-'));
      if (o == null) {
        continue;
      }
      String where = "pool '" + pool.name() + "': " + field + "[" + i + "] ";
      switch (o.kind()) {
        case FORBIDDEN -> out.add(new Violation(field, where + "sets " + name + ", " + o.source()));
        case SWITCH -> {
          if (inline != null && FALSE_VALUES.contains(inline.toLowerCase(Locale.ROOT))) {
            out.add(
                new Violation(
                    field, where + "turns off " + o.flag() + ", which " + o.source() + " needs"));
          }
        }
        case VALUE -> {
          String value = inline;
          if (value == null && i + 1 < args.size() && !args.get(i + 1).strip().startsWith("--")) {
            value = args.get(++i).strip();
          }
          if (value == null || !sameValue(value, o.value())) {
            out.add(
                new Violation(
                    field,
                    where
                        + "sets "
                        + name
                        + (value == null ? " without a value" : " " + value)
                        + ", which contradicts the operator-derived "
                        + o.flag()
                        + " "
                        + o.value()
                        + " (from "
                        + o.source()
                        + "); remove it"));
          }
        }
        default -> throw new IllegalStateException(o.kind().name());
      }
    }
    return out;
  }

  /** The flags the operator owns for {@code pool} on the deployment's engine, in emit order. */
  private static Map<String, Owned> owned(RenderInputs in, PoolSettings pool) {
    PoolRole role = pool.role();
    String page = Integer.toString(in.pageSize());
    String port = Integer.toString(Defaults.ENGINE_PORT);
    String pd = role == PoolRole.MIXED ? "null" : role.value();
    String dp = Integer.toString(pool.dataParallelSize());
    boolean dataParallel = pool.dataParallelSize() > 1;
    Map<String, Owned> m = new LinkedHashMap<>();
    Engine e = in.engine();
    switch (e) {
      case VLLM -> {
        put(m, "--port", Kind.VALUE, port, true, "the engine port the router and probes use");
        put(m, "--block-size", Kind.VALUE, page, true, "spec.pageSize");
        put(m, "--enable-prefix-caching", Kind.SWITCH, null, true, "KV-aware routing");
        put(
            m,
            "--enable-prompt-tokens-details",
            Kind.SWITCH,
            null,
            true,
            "usage.prompt_tokens_details.cached_tokens in every answer");
        put(m, "--kv-events-config", Kind.VALUE, VLLM_KV_EVENTS_CONFIG, true, "the relay sidecar");
        // Ranks offset the KV-event ports (vLLM's offset_endpoint_port); the relay reads them all.
        put(m, "--data-parallel-size", Kind.VALUE, dp, dataParallel, DP_SOURCE);
        alias(m, "-dp", "--data-parallel-size");
        put(m, "--data-parallel-size-local", Kind.VALUE, dp, false, DP_SOURCE);
        alias(m, "-dpl", "--data-parallel-size-local");
        String onePod =
            "but every data-parallel rank of a worker runs in its pod (" + DP_SOURCE + ")";
        put(m, "--data-parallel-rank", Kind.FORBIDDEN, null, false, onePod);
        alias(m, "-dpn", "--data-parallel-rank");
        put(m, "--data-parallel-start-rank", Kind.FORBIDDEN, null, false, onePod);
        alias(m, "-dpr", "--data-parallel-start-rank");
        if (role != PoolRole.MIXED) {
          put(
              m,
              "--kv-transfer-config",
              Kind.VALUE,
              vllmKvTransferConfig(pool.kvTransferRole()),
              true,
              "the pool's role and spec.pools[].kvTransferRole: the router's prefill/decode"
                  + " hand-over");
        }
        put(m, "--model", Kind.VALUE, in.model(), false, "spec.model");
        putIfAbsent(
            m,
            "--no-enable-prompt-tokens-details",
            Kind.FORBIDDEN,
            null,
            "but the operator reports cached prompt tokens (usage.prompt_tokens_details)");
      }
      case SGLANG -> {
        put(m, "--model-path", Kind.VALUE, in.model(), true, "spec.model");
        put(m, "--host", Kind.VALUE, "0.0.0.0", true, "the router, which reaches pods by IP");
        put(m, "--port", Kind.VALUE, port, true, "the engine port the router and probes use");
        put(m, "--page-size", Kind.VALUE, page, true, "spec.pageSize");
        put(
            m,
            "--kv-events-config",
            Kind.VALUE,
            SGLANG_KV_EVENTS_CONFIG,
            true,
            "the relay sidecar");
        put(
            m,
            "--enable-cache-report",
            Kind.SWITCH,
            null,
            true,
            "usage.prompt_tokens_details.cached_tokens in every answer");
        put(m, "--disaggregation-mode", Kind.VALUE, pd, role != PoolRole.MIXED, "the pool's role");
        if (role == PoolRole.DECODE) {
          if (pool.decodeRadixCache()) {
            put(
                m,
                "--disaggregation-decode-enable-radix-cache",
                Kind.SWITCH,
                null,
                true,
                "the decode pool's KV events (spec.pools[].decodeRadixCache)");
          } else {
            put(
                m,
                "--disaggregation-decode-enable-radix-cache",
                Kind.FORBIDDEN,
                null,
                false,
                "but spec.pools[].decodeRadixCache is false");
          }
        }
        // Pure data parallelism: SGLang offsets each replica's KV-event ports by its dp rank.
        put(m, "--dp-size", Kind.VALUE, dp, dataParallel, DP_SOURCE);
        alias(m, "--data-parallel-size", "--dp-size");
        alias(m, "--dp", "--dp-size");
        // Attention-DP ranks are offset by their attention rank instead; with dp-size > 1 as well
        // the replicas' ports would meet, so the operator does not let args change that layout.
        String attention =
            "but the relay reads "
                + DP_SOURCE
                + " KV-event ranks; for attention data parallelism set dataParallelSize and add"
                + " --enable-dp-attention";
        put(m, "--attn-dp-size", Kind.FORBIDDEN, null, false, attention);
        alias(m, "--attention-data-parallel-size", "--attn-dp-size");
        put(m, "--model", Kind.VALUE, in.model(), false, "spec.model");
      }
      case ATOM -> {
        put(m, "--model", Kind.VALUE, in.model(), true, "spec.model");
        put(m, "--host", Kind.VALUE, "0.0.0.0", true, "the router, which reaches pods by IP");
        // ATOM's HTTP port is --server-port; its --port is the engine's internal port, left alone.
        put(
            m,
            "--server-port",
            Kind.VALUE,
            port,
            true,
            "the engine port the router and probes use");
        put(m, "--block-size", Kind.VALUE, page, true, "spec.pageSize");
        // Prefix caching is on by default (--enable_prefix_caching, a boolean option).
        put(m, "--enable-prefix-caching", Kind.SWITCH, null, false, "KV-aware routing");
        if (role != PoolRole.MIXED) {
          put(
              m,
              "--kv-transfer-config",
              Kind.VALUE,
              atomKvTransferConfig(role),
              true,
              "the pool's role: the router's prefill/decode hand-over");
        }
        // One KV-event endpoint per engine (ATOM_KV_EVENTS_ENDPOINT): one data-parallel rank.
        String oneRank =
            "but ATOM's KV-event publisher binds the same endpoint in every data-parallel rank";
        put(m, "--data-parallel-size", Kind.VALUE, "1", false, DP_SOURCE + " (1 for atom)");
        alias(m, "-dp", "--data-parallel-size");
        put(m, "--enable-dp-attention", Kind.FORBIDDEN, null, false, oneRank);
      }
      case SIM -> {
        put(m, "--host", Kind.VALUE, "0.0.0.0", true, "the router, which reaches pods by IP");
        put(m, "--port", Kind.VALUE, port, true, "the engine port the router and probes use");
        put(
            m,
            "--zmq-port",
            Kind.VALUE,
            Integer.toString(Defaults.ZMQ_PORT),
            true,
            "the relay sidecar");
        put(
            m,
            "--replay-port",
            Kind.VALUE,
            Integer.toString(Defaults.REPLAY_PORT),
            true,
            "the relay sidecar");
        put(
            m,
            "--kv-events-host",
            Kind.VALUE,
            KV_EVENTS_HOST,
            true,
            "the relay sidecar, which binds the loopback KV-event ports");
        put(m, "--block-size", Kind.VALUE, page, true, "spec.pageSize");
        put(m, "--model", Kind.VALUE, in.model(), true, "spec.model");
        put(m, "--dp-size", Kind.VALUE, dp, dataParallel, DP_SOURCE);
      }
      default -> throw new IllegalStateException("unknown engine " + e);
    }
    // Defended on every engine: either spelling of the page size, the PD role, prefix caching.
    putIfAbsent(m, "--block-size", Kind.VALUE, page, "spec.pageSize");
    putIfAbsent(m, "--page-size", Kind.VALUE, page, "spec.pageSize");
    putIfAbsent(m, "--disaggregation-mode", Kind.VALUE, pd, "the pool's role");
    putIfAbsent(
        m,
        "--kv-events-config",
        Kind.FORBIDDEN,
        null,
        e == Engine.ATOM
            ? "but ATOM's KV events are configured by the operator (ATOM_KV_EVENTS_* variables)"
            : "but the simulator's KV events are configured by the operator (--zmq-port,"
                + " --replay-port)");
    if (e != Engine.ATOM) {
      putIfAbsent(m, "--port", Kind.VALUE, port, "the engine port the router and probes use");
    }
    putIfAbsent(
        m,
        "--no-enable-prefix-caching",
        Kind.FORBIDDEN,
        null,
        "but KV-aware routing needs prefix caching");
    putIfAbsent(
        m,
        "--disable-radix-cache",
        Kind.FORBIDDEN,
        null,
        "but KV-aware routing needs prefix caching");
    putIfAbsent(m, "--enable-prefix-caching", Kind.SWITCH, null, "KV-aware routing");
    return m;
  }

  private static void put(
      Map<String, Owned> m, String flag, Kind kind, String value, boolean emitted, String source) {
    m.put(flag, new Owned(flag, kind, value, emitted, source));
  }

  private static void putIfAbsent(
      Map<String, Owned> m, String flag, Kind kind, String value, String source) {
    m.putIfAbsent(flag, new Owned(flag, kind, value, false, source));
  }

  /** Another spelling the engine's parser accepts for {@code flag}; defended, never emitted. */
  private static void alias(Map<String, Owned> m, String alias, String flag) {
    Owned o = m.get(flag);
    m.put(alias, new Owned(o.flag(), o.kind(), o.value(), false, o.source()));
  }

  /** {@code --long} or {@code -short} (vLLM's {@code -dp}), not a negative number. */
  private static boolean isFlag(String token) {
    return token.length() > 1
        && token.charAt(0) == '-'
        && !Character.isDigit(token.charAt(1))
        && token.charAt(1) != '.';
  }

  private static boolean sameValue(String given, String derived) {
    if (given.equals(derived)) {
      return true;
    }
    try {
      return new BigDecimal(given).compareTo(new BigDecimal(derived)) == 0;
    } catch (NumberFormatException e) {
      // not numbers
    }
    if (derived.startsWith("{")) {
      try {
        JsonNode a = JSON.readTree(given);
        JsonNode b = JSON.readTree(derived);
        return a != null && a.equals(b);
      } catch (JsonProcessingException e) {
        return false;
      }
    }
    return false;
  }

  private static int indexOfWhitespace(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isWhitespace(s.charAt(i))) {
        return i;
      }
    }
    return -1;
  }
}
