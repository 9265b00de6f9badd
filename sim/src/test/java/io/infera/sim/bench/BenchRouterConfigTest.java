package io.infera.sim.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.PolicyConfig;
import io.infera.router.config.PolicyName;
import io.infera.router.config.RouterConfig;
import io.infera.sim.sched.EngineConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BenchRouterConfigTest {

  /**
   * The YAML the live bench used to assemble for its router; the typed config must be exactly what
   * the loader made of it, so the benchmark's router behaves as before.
   */
  static String legacyYaml(FleetSpec fleet, PolicyConfig policy, List<String[]> engines) {
    StringBuilder yaml =
        new StringBuilder("model: sim\npageSize: ")
            .append(fleet.blockSize())
            .append("\ntokenizer: {path: 'builtin:qwen3'}\nevents: {transport: zmq}\n")
            .append("policy: {name: ")
            .append(policy.name().wireName())
            .append(", overlapWeight: ")
            .append(policy.overlapWeight())
            .append("}\nlisten: {host: 127.0.0.1, port: 0}\nlimits: {firstByteTimeoutMs: 600000}\n")
            .append("discovery:\n  healthIntervalMs: 1000\n  workers:\n");
    for (int i = 0; i < engines.size(); i++) {
      String[] e = engines.get(i);
      yaml.append("    - {id: w")
          .append(i)
          .append(", url: '")
          .append(e[0])
          .append("', zmq: '")
          .append(e[1])
          .append("'")
          .append(e[2] == null ? "" : ", zmqReplay: '" + e[2] + "'")
          .append("}\n");
    }
    return yaml.toString();
  }

  @ParameterizedTest(name = "{0} workers, block {1}, {2}, weight {3}")
  @CsvSource({
    "1, 16, kv-aware, 1.0",
    "2, 32, round-robin, 1.0",
    "8, 16, approx-prefix, 0.35",
    "4, 64, least-loaded, 2.5",
  })
  void isWhatTheLoaderMadeOfTheLegacyYaml(
      int workers, int blockSize, String policyName, double weight) throws Exception {
    FleetSpec fleet = new FleetSpec(workers, 512, blockSize, EngineConfig.defaults(), 2.0, weight);
    PolicyConfig policy = fleet.policy(PolicyName.parse(policyName));
    List<String[]> engines = new ArrayList<>();
    List<RouterConfig.StaticWorker> typed = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      String url = "http://127.0.0.1:" + (8000 + i);
      String zmq = "tcp://127.0.0.1:" + (5557 + i);
      // Every other engine has a replay socket, to cover both shapes of a worker.
      String replay = i % 2 == 0 ? null : "tcp://127.0.0.1:" + (6557 + i);
      engines.add(new String[] {url, zmq, replay});
      typed.add(BenchRouterConfig.worker(i, url, zmq, replay));
    }
    RouterConfig expected = ConfigLoader.parse(legacyYaml(fleet, policy, engines));
    assertThat(BenchRouterConfig.forWorkers(fleet, policy, typed)).isEqualTo(expected);
  }
}
