/**
 * Peer routers for side-by-side benches: another project's router, installed from PyPI into a
 * project-local virtualenv ({@link io.infera.sim.bench.peer.PeerInstall}) and started in its own
 * process in front of the same simulated engines ({@link io.infera.sim.bench.peer.PeerProcess}).
 */
package io.infera.sim.bench.peer;
