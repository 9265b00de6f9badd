package io.infera.operator.validation;

import java.util.Objects;

/**
 * One reason a resource is refused.
 *
 * @param field the offending field, e.g. {@code spec.pools[1].args}
 * @param message what is wrong, for a person
 */
public record Violation(String field, String message) {

  public Violation {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(message, "message");
  }

  @Override
  public String toString() {
    return field + ": " + message;
  }
}
