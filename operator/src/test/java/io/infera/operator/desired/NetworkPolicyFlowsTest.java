package io.infera.operator.desired;

import static io.infera.operator.testing.Fixtures.fleet;
import static io.infera.operator.testing.Fixtures.idep;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.NetworkPolicySpec;
import io.infera.operator.api.v1alpha1.PoolRole;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Renders the deployment's NetworkPolicies and evaluates them as the API defines them (a flow is
 * allowed when no policy selecting the destination restricts ingress or one of their rules admits
 * it, and likewise for the source's egress): every flow the deployment needs is allowed, a sample
 * of others is denied.
 */
class NetworkPolicyFlowsTest {

  private static final String NS = "ns";

  /** A pod (namespace + labels) or, with {@code pod} false, an address outside the cluster. */
  record Peer(
      boolean pod, String namespace, Map<String, String> labels, Map<String, String> nsLabels) {
    static Peer pod(String ns, Map<String, String> labels) {
      return new Peer(true, ns, labels, Map.of("kubernetes.io/metadata.name", ns));
    }

    static Peer external() {
      return new Peer(false, null, Map.of(), Map.of());
    }
  }

  private static Peer router() {
    return Peer.pod(NS, Labels.router("demo"));
  }

  private static Peer worker(String pool, PoolRole role) {
    return Peer.pod(NS, Labels.pool("demo", pool, role));
  }

  private static Peer nats() {
    return Peer.pod(NS, Labels.nats("demo"));
  }

  private static Peer operator() {
    return Peer.pod("infera-system", Map.of(Labels.NAME, Labels.OPERATOR_NAME));
  }

  private static Peer stranger() {
    return Peer.pod(NS, Map.of("app", "curious"));
  }

  private static Peer strangerElsewhere() {
    return Peer.pod("other", Map.of("app", "curious"));
  }

  private static List<NetworkPolicy> policies(InferaDeployment idep) {
    return List.copyOf(fleet(idep).networkPolicies().values());
  }

  @Test
  void aPrefillDecodeVllmDeploymentAllowsEveryFlowItNeeds() {
    List<NetworkPolicy> np = policies(idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE));
    Peer prefill = worker("prefill", PoolRole.PREFILL);
    Peer decode = worker("decode", PoolRole.DECODE);
    // Clients → routers → engines.
    assertThat(allowed(np, stranger(), router(), "TCP", Defaults.ROUTER_PORT)).isTrue();
    assertThat(allowed(np, strangerElsewhere(), router(), "TCP", Defaults.ROUTER_PORT)).isTrue();
    assertThat(allowed(np, router(), prefill, "TCP", Defaults.ENGINE_PORT)).isTrue();
    assertThat(allowed(np, router(), decode, "TCP", Defaults.ENGINE_PORT)).isTrue();
    // The hand-over: NIXL's side channel of every rank and its data ports, both ways.
    assertThat(allowed(np, decode, prefill, "TCP", DesiredPool.VLLM_NIXL_SIDE_CHANNEL_PORT))
        .isTrue();
    assertThat(allowed(np, prefill, decode, "TCP", DesiredPool.VLLM_NIXL_SIDE_CHANNEL_PORT + 3))
        .isTrue();
    assertThat(allowed(np, decode, prefill, "TCP", 41_234)).isTrue();
    // The event plane: relays and routers → NATS.
    assertThat(allowed(np, prefill, nats(), "TCP", Defaults.NATS_CLIENT_PORT)).isTrue();
    assertThat(allowed(np, router(), nats(), "TCP", Defaults.NATS_CLIENT_PORT)).isTrue();
    // The operator → the routers' admin port.
    assertThat(allowed(np, operator(), router(), "TCP", Defaults.ROUTER_ADMIN_PORT)).isTrue();
    // DNS, the Kubernetes API (discovery) and the hub.
    for (Peer p : List.of(router(), prefill, decode)) {
      assertThat(allowed(np, p, Peer.external(), "UDP", 53)).isTrue();
      assertThat(allowed(np, p, Peer.external(), "TCP", 53)).isTrue();
      assertThat(allowed(np, p, Peer.external(), "TCP", 443)).isTrue();
    }
    assertThat(allowed(np, router(), Peer.external(), "TCP", 6443)).isTrue();
  }

  @Test
  void everythingElseIsDenied() {
    List<NetworkPolicy> np = policies(idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE));
    Peer prefill = worker("prefill", PoolRole.PREFILL);
    Peer decode = worker("decode", PoolRole.DECODE);
    // Nobody but the routers reaches an engine, and nobody reaches its KV-event ports.
    assertThat(allowed(np, stranger(), prefill, "TCP", Defaults.ENGINE_PORT)).isFalse();
    assertThat(allowed(np, strangerElsewhere(), decode, "TCP", Defaults.ENGINE_PORT)).isFalse();
    assertThat(allowed(np, stranger(), prefill, "TCP", Defaults.ZMQ_PORT)).isFalse();
    assertThat(allowed(np, router(), prefill, "TCP", Defaults.ZMQ_PORT)).isFalse();
    assertThat(allowed(np, router(), prefill, "TCP", Defaults.REPLAY_PORT)).isFalse();
    assertThat(allowed(np, stranger(), decode, "TCP", DesiredPool.VLLM_NIXL_SIDE_CHANNEL_PORT))
        .isFalse();
    // NATS only for the deployment's routers and relays; the routers' admin port only for the
    // operator (no scraper configured).
    assertThat(allowed(np, stranger(), nats(), "TCP", Defaults.NATS_CLIENT_PORT)).isFalse();
    assertThat(allowed(np, stranger(), nats(), "TCP", Defaults.NATS_MONITOR_PORT)).isFalse();
    assertThat(allowed(np, stranger(), router(), "TCP", Defaults.ROUTER_ADMIN_PORT)).isFalse();
    assertThat(allowed(np, prefill, router(), "TCP", Defaults.ROUTER_ADMIN_PORT)).isFalse();
    assertThat(allowed(np, stranger(), prefill, "TCP", Defaults.RELAY_HTTP_PORT)).isFalse();
    // Engines and routers open nothing else: no other pod, no other external port.
    assertThat(allowed(np, prefill, stranger(), "TCP", 8080)).isFalse();
    assertThat(allowed(np, prefill, Peer.external(), "TCP", 80)).isFalse();
    assertThat(allowed(np, router(), Peer.external(), "TCP", 4222)).isFalse();
    assertThat(allowed(np, router(), stranger(), "TCP", Defaults.ENGINE_PORT)).isFalse();
    assertThat(allowed(np, prefill, router(), "TCP", Defaults.ROUTER_PORT)).isFalse();
    // NATS opens no connection at all.
    assertThat(allowed(np, nats(), Peer.external(), "UDP", 53)).isFalse();
    assertThat(allowed(np, nats(), router(), "TCP", Defaults.ROUTER_PORT)).isFalse();
  }

  @Test
  void mixedPoolsExchangeNothingWithEachOtherOrWithPrefill() {
    InferaDeployment idep = idep(Engine.SGLANG, PoolRole.MIXED, PoolRole.PREFILL, PoolRole.DECODE);
    List<NetworkPolicy> np = policies(idep);
    Peer mixed = worker("mixed", PoolRole.MIXED);
    Peer prefill = worker("prefill", PoolRole.PREFILL);
    Peer decode = worker("decode", PoolRole.DECODE);
    assertThat(allowed(np, decode, prefill, "TCP", DesiredPool.SGLANG_BOOTSTRAP_PORT)).isTrue();
    assertThat(allowed(np, mixed, prefill, "TCP", DesiredPool.SGLANG_BOOTSTRAP_PORT)).isFalse();
    assertThat(allowed(np, prefill, mixed, "TCP", DesiredPool.SGLANG_BOOTSTRAP_PORT)).isFalse();
    assertThat(allowed(np, router(), prefill, "TCP", DesiredPool.SGLANG_BOOTSTRAP_PORT)).isFalse();
    // Another deployment's decode pods are not peers.
    Peer foreign = Peer.pod(NS, Labels.pool("other", "decode", PoolRole.DECODE));
    assertThat(allowed(np, foreign, prefill, "TCP", DesiredPool.SGLANG_BOOTSTRAP_PORT)).isFalse();
    assertThat(allowed(np, foreign, nats(), "TCP", Defaults.NATS_CLIENT_PORT)).isFalse();
  }

  @Test
  void aConfiguredScraperReachesTheMetricsPortsAndNothingElse() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    NetworkPolicySpec.ScraperSpec scraper = new NetworkPolicySpec.ScraperSpec();
    scraper.setNamespaceLabels(Map.of("kubernetes.io/metadata.name", "monitoring"));
    scraper.setPodLabels(Map.of("app.kubernetes.io/name", "prometheus"));
    idep.getSpec().getNetworkPolicy().setScraper(scraper);
    List<NetworkPolicy> np = policies(idep);
    Peer prometheus = Peer.pod("monitoring", Map.of("app.kubernetes.io/name", "prometheus"));
    Peer other = Peer.pod("monitoring", Map.of("app.kubernetes.io/name", "grafana"));
    Peer mixed = worker("mixed", PoolRole.MIXED);
    assertThat(allowed(np, prometheus, router(), "TCP", Defaults.ROUTER_ADMIN_PORT)).isTrue();
    assertThat(allowed(np, prometheus, mixed, "TCP", Defaults.RELAY_HTTP_PORT)).isTrue();
    assertThat(allowed(np, prometheus, mixed, "TCP", Defaults.ENGINE_PORT)).isTrue();
    assertThat(allowed(np, prometheus, nats(), "TCP", Defaults.NATS_MONITOR_PORT)).isTrue();
    assertThat(allowed(np, prometheus, nats(), "TCP", Defaults.NATS_CLIENT_PORT)).isFalse();
    assertThat(allowed(np, prometheus, mixed, "TCP", Defaults.ZMQ_PORT)).isFalse();
    assertThat(allowed(np, other, router(), "TCP", Defaults.ROUTER_ADMIN_PORT)).isFalse();
    assertThat(allowed(np, other, mixed, "TCP", Defaults.RELAY_HTTP_PORT)).isFalse();
  }

  @Test
  void theOperatorsNamespaceCanBeNarrowed() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec()
        .getNetworkPolicy()
        .setOperatorNamespaceLabels(Map.of("kubernetes.io/metadata.name", "infera-system"));
    List<NetworkPolicy> np = policies(idep);
    Peer impostor = Peer.pod("evil", Map.of(Labels.NAME, Labels.OPERATOR_NAME));
    assertThat(allowed(np, operator(), router(), "TCP", Defaults.ROUTER_ADMIN_PORT)).isTrue();
    assertThat(allowed(np, impostor, router(), "TCP", Defaults.ROUTER_ADMIN_PORT)).isFalse();
  }

  @Test
  void anExternalNatsIsReachedOnItsUrlsPortAndNoNatsPolicyIsWritten() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec().getNats().setUrl("tls://nats.example.com:7422");
    List<NetworkPolicy> np = policies(idep);
    assertThat(np)
        .extracting(p -> p.getMetadata().getName())
        .containsExactly("demo-mixed", "demo-router");
    Peer mixed = worker("mixed", PoolRole.MIXED);
    assertThat(allowed(np, mixed, Peer.external(), "TCP", 7422)).isTrue();
    assertThat(allowed(np, router(), Peer.external(), "TCP", 7422)).isTrue();
    assertThat(allowed(np, router(), Peer.external(), "TCP", 4222)).isFalse();
    assertThat(DesiredNetworkPolicy.externalPort("nats://a,nats://b:1")).isEqualTo(4222);
    assertThat(DesiredNetworkPolicy.externalPort("nats://[::1]:5000")).isEqualTo(5000);
    assertThat(DesiredNetworkPolicy.externalPort("nats://bad host:12")).isEqualTo(4222);
  }

  @ParameterizedTest
  @EnumSource(Engine.class)
  void turnedOffThereAreNone(Engine engine) {
    InferaDeployment idep = idep(engine, PoolRole.MIXED);
    assertThat(policies(idep)).hasSize(3);
    idep.getSpec().getNetworkPolicy().setEnabled(false);
    assertThat(policies(idep)).isEmpty();
    assertThat(fleet(idep).all()).noneMatch(o -> o.getKind().equals("NetworkPolicy"));
  }

  /** Whether {@code from} may open {@code protocol/port} on {@code to} under {@code policies}. */
  static boolean allowed(
      List<NetworkPolicy> policies, Peer from, Peer to, String protocol, int port) {
    return ingressAllowed(policies, from, to, protocol, port)
        && egressAllowed(policies, from, to, protocol, port);
  }

  private static boolean ingressAllowed(
      List<NetworkPolicy> policies, Peer from, Peer to, String protocol, int port) {
    if (!to.pod()) {
      return true; // outside the cluster: no policy of ours applies
    }
    List<NetworkPolicy> selecting =
        policies.stream()
            .filter(p -> p.getSpec().getPolicyTypes().contains("Ingress"))
            .filter(p -> selects(p, to))
            .toList();
    if (selecting.isEmpty()) {
      return true;
    }
    return selecting.stream()
        .flatMap(p -> p.getSpec().getIngress().stream().map(r -> Map.entry(p, r)))
        .anyMatch(
            e ->
                ports(e.getValue().getPorts(), protocol, port)
                    && peers(e.getKey(), e.getValue().getFrom(), from));
  }

  private static boolean egressAllowed(
      List<NetworkPolicy> policies, Peer from, Peer to, String protocol, int port) {
    if (!from.pod()) {
      return true;
    }
    List<NetworkPolicy> selecting =
        policies.stream()
            .filter(p -> p.getSpec().getPolicyTypes().contains("Egress"))
            .filter(p -> selects(p, from))
            .toList();
    if (selecting.isEmpty()) {
      return true;
    }
    return selecting.stream()
        .flatMap(p -> p.getSpec().getEgress().stream().map(r -> Map.entry(p, r)))
        .anyMatch(
            e ->
                ports(e.getValue().getPorts(), protocol, port)
                    && peers(e.getKey(), e.getValue().getTo(), to));
  }

  private static boolean selects(NetworkPolicy p, Peer pod) {
    return pod.namespace().equals(p.getMetadata().getNamespace())
        && matches(p.getSpec().getPodSelector(), pod.labels());
  }

  /** No ports: every port; else one whose protocol (default TCP) and number match. */
  private static boolean ports(List<NetworkPolicyPort> ports, String protocol, int port) {
    if (ports == null || ports.isEmpty()) {
      return true;
    }
    return ports.stream()
        .anyMatch(
            p ->
                (p.getProtocol() == null ? "TCP" : p.getProtocol()).equals(protocol)
                    && (p.getPort() == null || p.getPort().getIntVal() == port));
  }

  /** No peers: everyone; else one peer matching (ipBlock: addresses outside the cluster). */
  private static boolean peers(NetworkPolicy p, List<NetworkPolicyPeer> peers, Peer who) {
    if (peers == null || peers.isEmpty()) {
      return true;
    }
    for (NetworkPolicyPeer peer : peers) {
      if (peer.getIpBlock() != null) {
        if (!who.pod()) {
          return true;
        }
        continue;
      }
      if (!who.pod()) {
        continue;
      }
      boolean nsOk =
          peer.getNamespaceSelector() == null
              ? who.namespace().equals(p.getMetadata().getNamespace())
              : matches(peer.getNamespaceSelector(), who.nsLabels());
      boolean podOk = peer.getPodSelector() == null || matches(peer.getPodSelector(), who.labels());
      if (nsOk && podOk) {
        return true;
      }
    }
    return false;
  }

  private static boolean matches(LabelSelector s, Map<String, String> labels) {
    assertThat(s.getMatchExpressions()).as("the operator writes matchLabels only").isNullOrEmpty();
    Map<String, String> want = s.getMatchLabels() == null ? Map.of() : s.getMatchLabels();
    return new HashMap<>(labels).entrySet().containsAll(want.entrySet());
  }
}
