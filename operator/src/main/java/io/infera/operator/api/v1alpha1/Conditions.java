package io.infera.operator.api.v1alpha1;

/** Condition types and reasons of {@link InferaDeploymentStatus} (CamelCase, a contract). */
public final class Conditions {

  public static final String READY = "Ready";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";
  public static final String EVENTS_FLOWING = "EventsFlowing";

  /** Reason of {@code Degraded=True} when the spec cannot be built (CEL, Java checks, args). */
  public static final String REASON_INVALID_SPEC = "InvalidSpec";

  private Conditions() {}
}
