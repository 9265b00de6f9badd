package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import io.infera.operator.validation.Violation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment variables the operator derives for the engine container, besides {@code
 * PYTHONHASHSEED}, and the check that a pool's own {@code env} does not contradict them.
 *
 * <p>ATOM takes its KV-event settings from the environment only ({@code ATOM_KV_EVENTS_*}; its
 * server has no flag for them, docs/atom.md): the publisher is switched on, on the loopback port
 * the relay reads, with the fleet's topic. Its PUB socket always binds, so the relay connects. A
 * pool variable of the same name with the same value is accepted (and not repeated); any other
 * value, or a reference, is refused with a violation naming the variable, never overridden.
 */
public final class EngineEnv {

  /** ATOM: {@code "1"} switches the KV-event publisher on (any other value leaves it off). */
  public static final String ATOM_KV_EVENTS_ENABLE = "ATOM_KV_EVENTS_ENABLE";

  public static final String ATOM_KV_EVENTS_PUBLISHER = "ATOM_KV_EVENTS_PUBLISHER";
  public static final String ATOM_KV_EVENTS_ENDPOINT = "ATOM_KV_EVENTS_ENDPOINT";
  public static final String ATOM_KV_EVENTS_TOPIC = "ATOM_KV_EVENTS_TOPIC";

  private EngineEnv() {}

  /** The derived variables of {@code engine}, in emit order (empty for engines with flags). */
  public static Map<String, String> derived(Engine engine) {
    Map<String, String> m = new LinkedHashMap<>();
    if (engine == Engine.ATOM) {
      m.put(ATOM_KV_EVENTS_ENABLE, "1");
      m.put(ATOM_KV_EVENTS_PUBLISHER, "zmq");
      m.put(
          ATOM_KV_EVENTS_ENDPOINT,
          "tcp://" + EngineCommand.KV_EVENTS_HOST + ":" + Defaults.ZMQ_PORT);
      // A topic makes ATOM send [topic, payload]; without one it sends the payload alone.
      m.put(ATOM_KV_EVENTS_TOPIC, Defaults.KV_EVENTS_TOPIC);
    }
    return m;
  }

  /** The derived variables as container env entries. */
  public static List<EnvVar> vars(RenderInputs in) {
    List<EnvVar> out = new ArrayList<>();
    derived(in.engine()).forEach((k, v) -> out.add(Common.env(k, v)));
    return out;
  }

  /** Whether a pool variable is one of the derived ones (then it is not repeated). */
  public static boolean isDerived(RenderInputs in, String name) {
    return derived(in.engine()).containsKey(name);
  }

  /**
   * The pool variables that contradict a derived one, one violation each.
   *
   * @param field the pool's env field, e.g. {@code spec.pools[1].env}
   */
  public static List<Violation> contradictions(RenderInputs in, PoolSettings pool, String field) {
    Map<String, String> derived = derived(in.engine());
    List<Violation> out = new ArrayList<>();
    for (int j = 0; j < pool.env().size(); j++) {
      EnvVar e = pool.env().get(j);
      String want = derived.get(e.getName());
      if (want == null) {
        continue;
      }
      if (e.getValueFrom() != null || !want.equals(e.getValue())) {
        out.add(
            new Violation(
                field + "[" + j + "]",
                "pool '"
                    + pool.name()
                    + "' sets "
                    + e.getName()
                    + (e.getValueFrom() != null ? " from a reference" : "=" + e.getValue())
                    + ", which contradicts the operator-derived "
                    + e.getName()
                    + "="
                    + want
                    + " (the relay sidecar reads the engine's KV events there); remove it"));
      }
    }
    return out;
  }
}
