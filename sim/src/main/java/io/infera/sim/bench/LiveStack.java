package io.infera.sim.bench;

import io.infera.router.config.PolicyConfig;
import io.infera.router.events.zmq.ZmqTransport;
import io.infera.sim.bench.peer.Peer;
import io.infera.sim.bench.peer.PeerProcess;
import io.infera.sim.engine.EngineOptions;
import io.infera.sim.engine.Flavor;
import io.infera.sim.engine.SimEngine;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One live run's processes in this JVM: {@code fleet.workers()} simulated vLLM engines (HTTP and
 * ZMQ KV events on loopback ephemeral ports) and, for a policy arm, the real router in front of
 * them (zmq transport, static discovery) or a peer router in its own process; closed after the run,
 * so every arm and seed starts cold.
 */
public final class LiveStack implements AutoCloseable {

  private final Vertx vertx = Vertx.vertx();
  private final List<SimEngine> engines = new ArrayList<>();
  private InJvmRouter router;
  private PeerProcess peer;

  private LiveStack() {}

  /**
   * Starts the engines (engine {@code i} is worker {@code w<i>}, hash seed {@code 1000 × seed + i})
   * and, unless {@code policy} is null, the router with that policy, ready.
   *
   * @param speedup how much faster than the wall clock the engines' clocks run
   */
  public static LiveStack start(FleetSpec fleet, double speedup, int seed, PolicyConfig policy)
      throws Exception {
    LiveStack stack = new LiveStack();
    try {
      stack.startEngines(fleet, speedup, seed);
      if (policy != null) {
        stack.router =
            InJvmRouter.start(
                stack.vertx,
                BenchRouterConfig.of(fleet, policy, stack.engines),
                new ZmqTransport());
      }
      return stack;
    } catch (Exception e) {
      stack.close();
      throw e;
    }
  }

  /**
   * Starts the engines as {@link #start} does and {@code peer} (installed in {@code bin}) in front
   * of them, serving; a peer that brings its own engines (Dynamo) runs them instead of ours, with
   * our engines' configuration.
   */
  public static LiveStack startWithPeer(
      FleetSpec fleet, double speedup, int seed, Peer peer, Path bin) throws Exception {
    LiveStack stack = new LiveStack();
    try {
      if (peer.ownsEngines()) {
        stack.peer =
            PeerProcess.startWithOwnEngines(
                peer,
                bin,
                new Peer.Engines(
                    fleet.workers(),
                    fleet.blockSize(),
                    fleet.blocksPerWorker(),
                    fleet.engine().maxNumSeqs(),
                    fleet.engine().maxNumBatchedTokens(),
                    speedup),
                fleet.engine(),
                BenchRouterConfig.MODEL);
        return stack;
      }
      stack.startEngines(fleet, speedup, seed);
      stack.peer =
          PeerProcess.start(
              peer,
              bin,
              stack.engines.stream()
                  .map(e -> new Peer.Worker(e.url(), e.zmqEndpoint(), e.replayEndpoint()))
                  .toList(),
              BenchRouterConfig.MODEL,
              fleet.blockSize());
      return stack;
    } catch (Exception e) {
      stack.close();
      throw e;
    }
  }

  private void startEngines(FleetSpec fleet, double speedup, int seed) throws Exception {
    for (int i = 0; i < fleet.workers(); i++) {
      EngineOptions o =
          EngineOptions.defaults().toBuilder()
              .flavor(Flavor.VLLM)
              .blockSize(fleet.blockSize())
              .numBlocks(fleet.blocksPerWorker())
              .model(BenchRouterConfig.MODEL)
              .speedup(speedup)
              .hashSeed(1000L * seed + i)
              .maxNumSeqs(fleet.engine().maxNumSeqs())
              .maxNumBatchedTokens(fleet.engine().maxNumBatchedTokens())
              .build();
      engines.add(SimEngine.start(o, vertx, BenchTokenizer.qwen3()));
    }
  }

  /** The engines; position {@code i} is worker {@code w<i>}. */
  public List<SimEngine> engines() {
    return List.copyOf(engines);
  }

  /** The router, or null when the stack has none (the oracle and peer arms). */
  public InJvmRouter router() {
    return router;
  }

  /** The peer router, or null. */
  public PeerProcess peer() {
    return peer;
  }

  /** Where requests go: the router's or the peer's URL; null when neither runs. */
  public String frontUrl() {
    return router != null ? router.url() : peer != null ? peer.url() : null;
  }

  /** The engines' worst clock slip (see {@link SimEngine#clockSlip}). */
  public double clockSlip() {
    double slip = 0;
    for (SimEngine e : engines) {
      slip = Math.max(slip, e.clockSlip());
    }
    return slip;
  }

  /** Stops the router or peer, then the engines, then Vert.x. */
  @Override
  public void close() {
    if (router != null) {
      router.close();
    }
    if (peer != null) {
      peer.close();
    }
    for (SimEngine e : engines) {
      e.close();
    }
    vertx.close();
  }
}
