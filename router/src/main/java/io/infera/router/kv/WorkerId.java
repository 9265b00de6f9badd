package io.infera.router.kv;

/** The identity of one engine pod (its pod name, or the id given in a static worker list). */
public record WorkerId(String value) implements Comparable<WorkerId> {

  public WorkerId {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("worker id must be a non-empty string");
    }
  }

  public static WorkerId of(String value) {
    return new WorkerId(value);
  }

  @Override
  public int compareTo(WorkerId o) {
    return value.compareTo(o.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
