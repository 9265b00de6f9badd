package io.infera.operator.desired;

import io.infera.operator.api.v1alpha1.Conditions;
import io.infera.operator.validation.Violation;
import java.util.List;
import java.util.stream.Collectors;

/** The outcome of {@link DesiredFleet#build}: every child object, or why there are none. */
public sealed interface BuildResult permits BuildResult.Built, BuildResult.Invalid {

  /** The spec is valid: these are the desired children. */
  record Built(Fleet fleet) implements BuildResult {}

  /**
   * The spec is refused; no child may change. The reconciler reports {@code Degraded=True} with
   * {@code reason} and {@code message} and a Warning event; {@code render} prints the message.
   *
   * @param reason CamelCase condition reason ({@link Conditions#REASON_INVALID_SPEC})
   * @param message one line naming every offending field (pool and flag for contradicting args)
   */
  record Invalid(String reason, String message, List<Violation> violations) implements BuildResult {

    public Invalid {
      violations = List.copyOf(violations);
    }

    static Invalid of(List<Violation> violations) {
      return new Invalid(
          Conditions.REASON_INVALID_SPEC,
          violations.stream().map(Violation::toString).collect(Collectors.joining("; ")),
          violations);
    }
  }
}
