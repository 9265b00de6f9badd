package io.infera.sim.sched;

import io.infera.sim.bench.LayeringViolationPeer;
import io.vertx.core.Vertx;

/**
 * Test fixture, never used: what {@code ArchitectureTest} must reject (the engine model reaching
 * for Vert.x and the bench, and a cycle with it), so its rules are shown to be able to fail.
 */
public final class LayeringViolation {
  Vertx vertx;
  LayeringViolationPeer peer;
}
