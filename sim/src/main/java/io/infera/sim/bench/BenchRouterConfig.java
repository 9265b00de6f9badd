package io.infera.sim.bench;

import io.infera.router.config.ConfigException;
import io.infera.router.config.ConfigLoader;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.RouterConfig;
import io.infera.sim.engine.SimEngine;
import java.util.ArrayList;
import java.util.List;

/**
 * The live bench router's configuration as the typed {@link RouterConfig}: the loader's default for
 * every key except the fleet (static workers with their ZMQ endpoints), its block size and policy,
 * a loopback ephemeral listen port, a first-byte timeout long enough for any queued simulated
 * request, and health probes every second.
 */
final class BenchRouterConfig {

  /** The served model name the simulated engines answer to. */
  static final String MODEL = "sim";

  /** Slow simulated requests queue long at high load; the bench must not time them out. */
  static final long FIRST_BYTE_TIMEOUT_MS = 600_000;

  static final long HEALTH_INTERVAL_MS = 1000;

  /** The vendored tokenizer, the one {@link BenchTokenizer} shares. */
  static final String TOKENIZER = "builtin:qwen3";

  /**
   * Every other key at the loader's default (the one place they are defined): the loader requires
   * the model, a local tokenizer's path and, for the static backend, a worker; that placeholder
   * lends its defaults to the real workers.
   */
  private static final RouterConfig DEFAULTS =
      defaults(
          "model: "
              + MODEL
              + "\ntokenizer: {path: '"
              + TOKENIZER
              + "'}\ndiscovery: {workers: [{id: placeholder, url: 'http://127.0.0.1:1'}]}");

  private BenchRouterConfig() {}

  private static RouterConfig defaults(String minimal) {
    try {
      return ConfigLoader.parse(minimal);
    } catch (ConfigException e) {
      throw new IllegalStateException("the router's defaults do not load: " + e.getMessage(), e);
    }
  }

  /** The router in front of {@code engines} (worker {@code w<i>} is engine {@code i}). */
  static RouterConfig of(FleetSpec fleet, PolicyConfig policy, List<SimEngine> engines) {
    List<RouterConfig.StaticWorker> workers = new ArrayList<>();
    for (int i = 0; i < engines.size(); i++) {
      SimEngine e = engines.get(i);
      workers.add(worker(i, e.url(), e.zmqEndpoint(), e.replayEndpoint()));
    }
    return forWorkers(fleet, policy, workers);
  }

  /** The router in front of {@code workers}. */
  static RouterConfig forWorkers(
      FleetSpec fleet, PolicyConfig policy, List<RouterConfig.StaticWorker> workers) {
    RouterConfig d = DEFAULTS;
    RouterConfig.Limits l = d.limits();
    return new RouterConfig(
        d.model(),
        d.loraAdapters(),
        fleet.blockSize(),
        d.tokenizer(),
        policy,
        new RouterConfig.Events(
            RouterConfig.Transport.ZMQ, d.events().nats(), d.events().inprocBus()),
        new RouterConfig.Discovery(
            RouterConfig.Backend.STATIC,
            d.discovery().namespace(),
            List.of(),
            workers,
            HEALTH_INTERVAL_MS),
        new RouterConfig.Limits(
            l.maxBodyBytes(),
            l.retries(),
            l.connectTimeoutMs(),
            FIRST_BYTE_TIMEOUT_MS,
            l.shutdownTimeoutMs(),
            l.breakerFailures(),
            l.breakerCooldownMs(),
            l.breakerMaxCooldownMs()),
        new RouterConfig.Listen("127.0.0.1", 0));
  }

  /**
   * The static worker {@code w<position>}, its role, engine and ranks at their defaults.
   *
   * @param zmqReplay the replay endpoint, or null without one
   */
  static RouterConfig.StaticWorker worker(int position, String url, String zmq, String zmqReplay) {
    RouterConfig.StaticWorker d = DEFAULTS.discovery().workers().get(0);
    return new RouterConfig.StaticWorker(
        Oracle.workerId(position).value(),
        url,
        d.role(),
        d.engine(),
        zmq,
        zmqReplay,
        d.dpSize(),
        d.pool());
  }
}
