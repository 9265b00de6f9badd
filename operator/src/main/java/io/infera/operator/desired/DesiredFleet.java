package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import io.infera.operator.validation.SpecValidator;
import io.infera.operator.validation.Violation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The entry point: validates an {@code InferaDeployment} (schema and CEL rules in Java, then the
 * pools' args and env against what the operator derives) and builds every child, or none.
 */
public final class DesiredFleet {

  private DesiredFleet() {}

  /** Every child of {@code idep}, or {@link BuildResult.Invalid} with reason InvalidSpec. */
  public static BuildResult build(InferaDeployment idep) {
    List<Violation> violations = new ArrayList<>(SpecValidator.validate(idep));
    if (!violations.isEmpty()) {
      return BuildResult.Invalid.of(violations);
    }
    RenderInputs in = RenderInputs.of(idep);
    violations.addAll(poolConflicts(idep, in));
    if (!violations.isEmpty()) {
      return BuildResult.Invalid.of(violations);
    }
    return new BuildResult.Built(fleet(in));
  }

  /** Every child of valid inputs (callers that validated already, e.g. a dependent). */
  public static Fleet fleet(RenderInputs in) {
    TreeMap<String, Deployment> deployments = new TreeMap<>();
    TreeMap<String, Service> services = new TreeMap<>();
    for (PoolSettings p : in.pools()) {
      deployments.put(p.name(), DesiredPool.deployment(in, p));
      services.put(p.name(), DesiredPool.service(in, p));
    }
    TreeMap<String, NetworkPolicy> policies = new TreeMap<>();
    for (NetworkPolicy np : DesiredNetworkPolicy.all(in)) {
      policies.put(np.getMetadata().getName(), np);
    }
    boolean nats = in.nats().deployed();
    return new Fleet(
        in,
        nats ? Optional.of(DesiredNats.statefulSet(in)) : Optional.empty(),
        nats ? Optional.of(DesiredNats.service(in)) : Optional.empty(),
        nats ? Optional.of(DesiredNats.configMap(in)) : Optional.empty(),
        DesiredRouter.configMap(in),
        DesiredRouter.serviceAccount(in),
        DesiredRouter.role(in),
        DesiredRouter.roleBinding(in),
        DesiredRouter.deployment(in),
        DesiredRouter.service(in),
        deployments,
        services,
        policies);
  }

  /**
   * Pool args contradicting a derived flag, pool variables contradicting a derived one, and a pool
   * PYTHONHASHSEED other than the spec's.
   */
  static List<Violation> poolConflicts(InferaDeployment idep, RenderInputs in) {
    List<Violation> out = new ArrayList<>();
    List<PoolSpec> specPools = idep.getSpec().getPools();
    for (int i = 0; i < specPools.size(); i++) {
      String field = "spec.pools[" + i + "]";
      PoolSettings pool = in.pool(specPools.get(i).getName());
      out.addAll(EngineCommand.contradictions(in, pool, field + ".args"));
      out.addAll(EngineEnv.contradictions(in, pool, field + ".env"));
      for (int j = 0; j < pool.env().size(); j++) {
        EnvVar e = pool.env().get(j);
        if (DesiredPool.PYTHONHASHSEED.equals(e.getName())
            && (e.getValueFrom() != null
                || in.pythonHashSeed() == null
                || !in.pythonHashSeed().equals(e.getValue()))) {
          out.add(
              new Violation(
                  field + ".env[" + j + "]",
                  "pool '"
                      + pool.name()
                      + "' sets PYTHONHASHSEED"
                      + (e.getValueFrom() != null ? " from a reference" : "=" + e.getValue())
                      + ", which contradicts spec.pythonHashSeed ("
                      + (in.pythonHashSeed() == null
                          ? "unset: every pool reads the generated Secret "
                              + Names.generatedSecret(in.name())
                          : in.pythonHashSeed())
                      + "); remove it"));
        }
      }
    }
    return out;
  }
}
