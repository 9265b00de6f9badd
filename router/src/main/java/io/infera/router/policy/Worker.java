package io.infera.router.policy;

import io.infera.router.config.Role;
import io.infera.router.kv.WorkerId;
import java.util.Objects;

/** A routable worker as the policies see it: its id and its pool's role. */
public record Worker(WorkerId id, Role role) {

  public Worker {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(role, "role");
  }

  public static Worker of(String id, Role role) {
    return new Worker(WorkerId.of(id), role);
  }
}
