package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.desired.RenderInputs.NetworkPolicySettings;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The deployment's NetworkPolicies (docs/operations.md, "Network policies"): one for the router
 * pods, one per pool, one for the operator's NATS, each listing every flow its pods need, in and
 * out, and nothing else. Traffic inside a pod (engine ↔ relay over loopback) is not subject to
 * them.
 */
public final class DesiredNetworkPolicy {

  /** DNS, to wherever the cluster's resolver runs (a Service, a node-local cache). */
  static final int DNS_PORT = 53;

  /**
   * HTTPS to anywhere: the Kubernetes API (its endpoint is a host address no pod selector names;
   * 443 and 6443 are where API servers listen) and the model hub (engines' weights,
   * fetch-tokenizer).
   */
  static final List<Integer> HTTPS_PORTS = List.of(443, 6443);

  private DesiredNetworkPolicy() {}

  /** Every policy of {@code in}, empty when {@code spec.networkPolicy.enabled} is false. */
  public static List<NetworkPolicy> all(RenderInputs in) {
    if (!in.networkPolicy().enabled()) {
      return List.of();
    }
    List<NetworkPolicy> out = new ArrayList<>();
    out.add(router(in));
    for (PoolSettings p : in.pools()) {
      out.add(pool(in, p));
    }
    if (in.nats().deployed()) {
      out.add(nats(in));
    }
    return List.copyOf(out);
  }

  /**
   * Routers: clients on the public port from anywhere (the router Service is the deployment's
   * endpoint); the operator (and a scraper) on the admin port. Out: engines' HTTP, NATS, DNS, the
   * Kubernetes API (EndpointSlice discovery) and the hub (fetch-tokenizer).
   */
  public static NetworkPolicy router(RenderInputs in) {
    NetworkPolicySettings n = in.networkPolicy();
    List<NetworkPolicyIngressRule> ingress = new ArrayList<>();
    ingress.add(ingress(List.of(), tcp(Defaults.ROUTER_PORT)));
    List<NetworkPolicyPeer> admin = new ArrayList<>();
    admin.add(
        new NetworkPolicyPeerBuilder()
            .withNamespaceSelector(n.operatorNamespaces())
            .withPodSelector(n.operatorPods())
            .build());
    scraper(n).ifPresent(admin::add);
    ingress.add(ingress(admin, tcp(Defaults.ROUTER_ADMIN_PORT)));
    List<NetworkPolicyEgressRule> egress = new ArrayList<>();
    egress.add(egress(List.of(pods(Labels.workersSelector(in.name()))), tcp(Defaults.ENGINE_PORT)));
    egress.add(natsEgress(in));
    egress.add(dns());
    egress.add(https());
    return policy(
        in,
        Names.router(in.name()),
        Labels.router(in.name()),
        Labels.routerSelector(in.name()),
        ingress,
        egress);
  }

  /**
   * A pool's workers: the routers on the engine's HTTP port, a scraper on the engine's and the
   * relay's metrics; prefill and decode pools of the deployment with each other on every port (the
   * hand-over ports — SGLang's bootstrap server, vLLM's NIXL side channel — and the KV transfer's
   * data ports, which NIXL's and Mooncake's transports pick at run time). Out: the peer role, NATS
   * (the relay), DNS, HTTPS (model weights from the hub).
   */
  public static NetworkPolicy pool(RenderInputs in, PoolSettings pool) {
    NetworkPolicySettings n = in.networkPolicy();
    List<NetworkPolicyIngressRule> ingress = new ArrayList<>();
    ingress.add(
        ingress(List.of(pods(Labels.routerSelector(in.name()))), tcp(Defaults.ENGINE_PORT)));
    scraper(n)
        .ifPresent(
            s ->
                ingress.add(
                    ingress(List.of(s), tcp(Defaults.ENGINE_PORT), tcp(Defaults.RELAY_HTTP_PORT))));
    List<NetworkPolicyEgressRule> egress = new ArrayList<>();
    PoolRole peer = peerRole(pool.role());
    if (peer != null) {
      NetworkPolicyPeer peers = pods(Labels.roleSelector(in.name(), peer));
      ingress.add(new NetworkPolicyIngressRuleBuilder().withFrom(peers).build());
      egress.add(new NetworkPolicyEgressRuleBuilder().withTo(peers).build());
    }
    egress.add(natsEgress(in));
    egress.add(dns());
    egress.add(https());
    return policy(
        in,
        Names.pool(in.name(), pool.name()),
        Labels.pool(in.name(), pool.name(), pool.role()),
        Labels.poolSelector(in.name(), pool.name()),
        ingress,
        egress);
  }

  /**
   * The operator's NATS: clients (routers and relays) on 4222, a scraper on the monitoring port. No
   * egress at all: a single server opens no connection.
   */
  public static NetworkPolicy nats(RenderInputs in) {
    List<NetworkPolicyIngressRule> ingress = new ArrayList<>();
    ingress.add(
        ingress(
            List.of(
                pods(Labels.routerSelector(in.name())), pods(Labels.workersSelector(in.name()))),
            tcp(Defaults.NATS_CLIENT_PORT)));
    scraper(in.networkPolicy())
        .ifPresent(s -> ingress.add(ingress(List.of(s), tcp(Defaults.NATS_MONITOR_PORT))));
    return policy(
        in,
        Names.nats(in.name()),
        Labels.nats(in.name()),
        Labels.natsSelector(in.name()),
        ingress,
        List.of());
  }

  /** The pool role a role's pods exchange KV with, or null for mixed pools. */
  static PoolRole peerRole(PoolRole role) {
    return switch (role) {
      case PREFILL -> PoolRole.DECODE;
      case DECODE -> PoolRole.PREFILL;
      case MIXED -> null;
    };
  }

  /** The operator's NATS pods, or (external) anywhere on the URL's port. */
  private static NetworkPolicyEgressRule natsEgress(RenderInputs in) {
    if (in.nats().deployed()) {
      return egress(List.of(pods(Labels.natsSelector(in.name()))), tcp(Defaults.NATS_CLIENT_PORT));
    }
    return egress(anywhere(), tcp(externalPort(in.nats().externalUrl())));
  }

  /** The port of a {@code nats://} or {@code tls://} URL (the first, for a list), 4222 if none. */
  static int externalPort(String url) {
    String first = url.split(",")[0].strip();
    try {
      int port = URI.create(first).getPort();
      return port > 0 ? port : Defaults.NATS_CLIENT_PORT;
    } catch (IllegalArgumentException e) {
      return Defaults.NATS_CLIENT_PORT;
    }
  }

  private static NetworkPolicyEgressRule dns() {
    return new NetworkPolicyEgressRuleBuilder()
        .withPorts(port("UDP", DNS_PORT), port("TCP", DNS_PORT))
        .build();
  }

  private static NetworkPolicyEgressRule https() {
    return egress(
        anywhere(),
        HTTPS_PORTS.stream().map(DesiredNetworkPolicy::tcp).toArray(NetworkPolicyPort[]::new));
  }

  private static java.util.Optional<NetworkPolicyPeer> scraper(NetworkPolicySettings n) {
    if (!n.scraper()) {
      return java.util.Optional.empty();
    }
    NetworkPolicyPeerBuilder b = new NetworkPolicyPeerBuilder();
    if (n.scraperNamespaces() != null) {
      b.withNamespaceSelector(n.scraperNamespaces());
    }
    // A peer needs one selector: without any, the scraper is every pod of this namespace.
    b.withPodSelector(
        n.scraperPods() != null ? n.scraperPods() : new LabelSelectorBuilder().build());
    return java.util.Optional.of(b.build());
  }

  /** Every IPv4 and IPv6 address. */
  private static List<NetworkPolicyPeer> anywhere() {
    return List.of(
        new NetworkPolicyPeerBuilder().withNewIpBlock().withCidr("0.0.0.0/0").endIpBlock().build(),
        new NetworkPolicyPeerBuilder().withNewIpBlock().withCidr("::/0").endIpBlock().build());
  }

  private static NetworkPolicyPeer pods(Map<String, String> labels) {
    LabelSelector s = new LabelSelectorBuilder().withMatchLabels(labels).build();
    return new NetworkPolicyPeerBuilder().withPodSelector(s).build();
  }

  private static NetworkPolicyIngressRule ingress(
      List<NetworkPolicyPeer> from, NetworkPolicyPort... ports) {
    return new NetworkPolicyIngressRuleBuilder()
        .withFrom(from.isEmpty() ? null : from)
        .withPorts(ports)
        .build();
  }

  private static NetworkPolicyEgressRule egress(
      List<NetworkPolicyPeer> to, NetworkPolicyPort... ports) {
    return new NetworkPolicyEgressRuleBuilder().withTo(to).withPorts(ports).build();
  }

  private static NetworkPolicyPort tcp(int number) {
    return port("TCP", number);
  }

  private static NetworkPolicyPort port(String protocol, int number) {
    return new NetworkPolicyPortBuilder()
        .withProtocol(protocol)
        .withPort(new IntOrString(number))
        .build();
  }

  private static NetworkPolicy policy(
      RenderInputs in,
      String name,
      Map<String, String> labels,
      Map<String, String> selector,
      List<NetworkPolicyIngressRule> ingress,
      List<NetworkPolicyEgressRule> egress) {
    return new NetworkPolicyBuilder()
        .withMetadata(Common.meta(in, Names.networkPolicy(name), labels))
        .withNewSpec()
        .withNewPodSelector()
        .withMatchLabels(selector)
        .endPodSelector()
        .withPolicyTypes("Ingress", "Egress")
        .withIngress(ingress)
        .withEgress(egress)
        .endSpec()
        .build();
  }
}
