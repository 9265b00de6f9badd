package io.infera.sim.bench;

/** Test fixture for {@code ArchitectureTest}: closes a cycle with {@code sched}. */
public final class LayeringViolationPeer {
  io.infera.sim.sched.LayeringViolation back;
}
