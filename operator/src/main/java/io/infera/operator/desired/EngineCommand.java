package io.infera.operator.desired;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infera.operator.api.v1alpha1.Engine;
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
 * "Pitfalls"), the KV-event endpoints the relay reads, the port the router and probes use, the PD
 * role and prefix caching. A contradicting pool argument is refused, never silently overridden.
 *
 * @param command the container's {@code command}, or empty to keep the image's entrypoint
 * @param args the container's {@code args}: derived arguments, then the pool's own
 */
public record EngineCommand(List<String> command, List<String> args) {

  /** vLLM's {@code --kv-events-config}: ZMQ PUB + replay on the ports the relay reads. */
  /**
   * vLLM prefill/decode pools: NIXL moves the KV; the router does the hand-over (a one-token
   * prefill whose {@code kv_transfer_params} go to the decode worker).
   */
  public static final String VLLM_KV_TRANSFER_CONFIG =
      "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}";

  public static final String VLLM_KV_EVENTS_CONFIG =
      "{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:"
          + Defaults.ZMQ_PORT
          + "\",\"replay_endpoint\":\"tcp://*:"
          + Defaults.REPLAY_PORT
          + "\",\"topic\":\""
          + Defaults.KV_EVENTS_TOPIC
          + "\"}";

  /** SGLang's {@code --kv-events-config} (its config has no {@code enable_kv_cache_events}). */
  public static final String SGLANG_KV_EVENTS_CONFIG =
      "{\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:"
          + Defaults.ZMQ_PORT
          + "\",\"replay_endpoint\":\"tcp://*:"
          + Defaults.REPLAY_PORT
          + "\",\"topic\":\""
          + Defaults.KV_EVENTS_TOPIC
          + "\"}";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> FALSE_VALUES = Set.of("false", "0", "no", "off");

  public EngineCommand {
    command = List.copyOf(command);
    args = List.copyOf(args);
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
      case SIM -> {
        command = List.of(); // the image's entrypoint is infera-sim
        derived.add("engine");
      }
      default -> throw new IllegalStateException("unknown engine " + in.engine());
    }
    for (Owned o : owned(in, pool.role()).values()) {
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
    Map<String, Owned> owned = owned(in, pool.role());
    List<Violation> out = new ArrayList<>();
    List<String> args = pool.args();
    for (int i = 0; i < args.size(); i++) {
      String token = args.get(i).strip();
      if (!token.startsWith("--")) {
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

  /** The flags the operator owns for {@code role} on the deployment's engine, in emit order. */
  private static Map<String, Owned> owned(RenderInputs in, PoolRole role) {
    String page = Integer.toString(in.pageSize());
    String port = Integer.toString(Defaults.ENGINE_PORT);
    String pd = role == PoolRole.MIXED ? "null" : role.value();
    Map<String, Owned> m = new LinkedHashMap<>();
    Engine e = in.engine();
    switch (e) {
      case VLLM -> {
        put(m, "--port", Kind.VALUE, port, true, "the engine port the router and probes use");
        put(m, "--block-size", Kind.VALUE, page, true, "spec.pageSize");
        put(m, "--enable-prefix-caching", Kind.SWITCH, null, true, "KV-aware routing");
        put(m, "--kv-events-config", Kind.VALUE, VLLM_KV_EVENTS_CONFIG, true, "the relay sidecar");
        if (role != PoolRole.MIXED) {
          put(
              m,
              "--kv-transfer-config",
              Kind.VALUE,
              VLLM_KV_TRANSFER_CONFIG,
              true,
              "the pool's role: the router's prefill/decode hand-over");
        }
        put(m, "--model", Kind.VALUE, in.model(), false, "spec.model");
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
        put(m, "--disaggregation-mode", Kind.VALUE, pd, role != PoolRole.MIXED, "the pool's role");
        put(m, "--model", Kind.VALUE, in.model(), false, "spec.model");
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
        put(m, "--block-size", Kind.VALUE, page, true, "spec.pageSize");
        put(m, "--model", Kind.VALUE, in.model(), true, "spec.model");
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
        "but the simulator's KV events are configured by the operator (--zmq-port, --replay-port)");
    putIfAbsent(m, "--port", Kind.VALUE, port, "the engine port the router and probes use");
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
