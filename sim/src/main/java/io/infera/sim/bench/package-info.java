/**
 * The routing-quality benchmark: the same fleet and workload under every router policy plus the
 * {@link io.infera.sim.bench.Oracle} (which knows each engine's true cache) and the reference arms
 * regret is measured against (fixed-weight sweep, {@link io.infera.sim.bench.HitMaxPicker}), fresh
 * caches per arm, several seeds. Two drivers: {@link io.infera.sim.bench.VirtualCluster}
 * (deterministic discrete-event simulation of the engines with the production routing code; the CI
 * quality gate) and {@link io.infera.sim.bench.LiveCluster} (real router and simulated engines over
 * loopback HTTP and ZMQ: {@link io.infera.sim.bench.LiveStack}, {@link
 * io.infera.sim.bench.LoadGenerator}).
 */
package io.infera.sim.bench;
