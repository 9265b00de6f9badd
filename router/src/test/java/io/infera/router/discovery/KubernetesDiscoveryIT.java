package io.infera.router.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.infera.router.config.Role;
import io.infera.router.config.RouterConfig;
import io.infera.router.config.RouterConfig.Backend;
import io.infera.router.config.RouterConfig.Pool;
import io.infera.router.discovery.WorkerInfo.Readiness;
import io.infera.router.kv.WorkerId;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link KubernetesDiscovery} against a loopback fake API server (list + streaming watch). */
class KubernetesDiscoveryIT {

  private static final String NS = "test";
  private static final String LABEL = KubernetesDiscovery.SERVICE_NAME_LABEL;
  private static final String PREFILL_SLICE = "demo-prefill-abc12";
  private static final String DECODE_SLICE = "demo-decode-xyz34";

  private static final List<Pool> POOLS =
      List.of(
          new Pool("prefill", Role.PREFILL, "vllm", "demo-prefill", 8000, 5557, 5558, 1),
          new Pool("decode", Role.DECODE, "sglang", "demo-decode", 8100, 5600, 0, 2));

  private final List<List<WorkerInfo>> snapshots = new CopyOnWriteArrayList<>();
  private FakeKubeApiServer server;
  private KubernetesClient client;
  private KubernetesDiscovery discovery;

  @BeforeEach
  void startServer() throws Exception {
    server = FakeKubeApiServer.start();
  }

  @AfterEach
  void stopAll() {
    if (discovery != null) {
      discovery.close();
    }
    if (client != null) {
      client.close();
    }
    server.close();
  }

  @Test
  void initialListGivesTheReadyWorkersOfEveryPoolAndSyncs() {
    server.apply(
        slice(
            NS,
            PREFILL_SLICE,
            "demo-prefill",
            ready("prefill-0", "10.0.0.1"),
            ready("prefill-1", "10.0.0.2")));
    server.apply(slice(NS, DECODE_SLICE, "demo-decode", ready("decode-0", "10.0.1.1")));
    // Another Service in the namespace, and the pool's Service name in another namespace.
    server.apply(slice(NS, "other-abc", "other", ready("other-0", "10.0.9.9")));
    server.apply(slice("elsewhere", "demo-prefill-zz", "demo-prefill", ready("x-0", "10.0.8.8")));

    startDiscovery(NS);
    waiting().until(discovery::synced);

    assertThat(snapshots).hasSize(1);
    assertThat(snapshots.get(0))
        .containsExactly(
            prefill("prefill-0", "10.0.0.1", Readiness.READY),
            prefill("prefill-1", "10.0.0.2", Readiness.READY),
            decode("decode-0", "10.0.1.1", Readiness.READY));
    List<String> requests = decoded(server.requests());
    assertThat(requests)
        .anyMatch(
            r ->
                r.startsWith("GET /apis/discovery.k8s.io/v1/namespaces/test/endpointslices?")
                    && r.contains("labelSelector=" + LABEL + "=demo-prefill")
                    && !r.contains("watch=true"))
        .anyMatch(r -> r.contains("labelSelector=" + LABEL + "=demo-decode"))
        .anyMatch(r -> r.contains("watch=true") && r.contains("allowWatchBookmarks=true"));
  }

  @Test
  void usesTheClientNamespaceWhenTheConfigHasNone() {
    server.apply(slice(NS, PREFILL_SLICE, "demo-prefill", ready("prefill-0", "10.0.0.1")));
    server.apply(slice("elsewhere", DECODE_SLICE, "demo-decode", ready("decode-0", "10.0.1.1")));

    startDiscovery(null);
    waiting().until(discovery::synced);

    assertThat(latest()).containsExactly(prefill("prefill-0", "10.0.0.1", Readiness.READY));
  }

  @Test
  void emptyPoolsStillDeliverAFirstSnapshot() {
    startDiscovery(NS);
    waiting().until(discovery::synced);

    assertThat(snapshots).containsExactly(List.of());
    assertThat(discovery.name()).isEqualTo("kubernetes");
  }

  @Test
  void terminatingEndpointsDrain() {
    startWithTwoPrefillsAndOneDecode();

    server.apply(
        slice(
            NS,
            PREFILL_SLICE,
            "demo-prefill",
            ready("prefill-0", "10.0.0.1"),
            endpoint("prefill-1", "10.0.0.2", false, true, true)));
    waiting()
        .untilAsserted(
            () ->
                assertThat(latest())
                    .containsExactly(
                        prefill("prefill-0", "10.0.0.1", Readiness.READY),
                        prefill("prefill-1", "10.0.0.2", Readiness.DRAINING),
                        decode("decode-0", "10.0.1.1", Readiness.READY)));

    // ready forced true (publishNotReadyAddresses) on a terminating pod: it still drains.
    server.apply(
        slice(NS, DECODE_SLICE, "demo-decode", endpoint("decode-0", "10.0.1.1", true, true, true)));
    waiting()
        .untilAsserted(
            () ->
                assertThat(latest())
                    .contains(decode("decode-0", "10.0.1.1", Readiness.DRAINING))
                    .hasSize(3));
  }

  @Test
  void endpointRemovedFromItsSliceIsGone() {
    startWithTwoPrefillsAndOneDecode();

    server.apply(slice(NS, PREFILL_SLICE, "demo-prefill", ready("prefill-0", "10.0.0.1")));

    waiting()
        .untilAsserted(
            () ->
                assertThat(latest())
                    .containsExactly(
                        prefill("prefill-0", "10.0.0.1", Readiness.READY),
                        decode("decode-0", "10.0.1.1", Readiness.READY)));
  }

  @Test
  void deletedSliceTakesItsWorkersAway() {
    startWithTwoPrefillsAndOneDecode();

    assertThat(server.delete(NS, DECODE_SLICE)).isTrue();

    waiting()
        .untilAsserted(
            () ->
                assertThat(latest())
                    .containsExactly(
                        prefill("prefill-0", "10.0.0.1", Readiness.READY),
                        prefill("prefill-1", "10.0.0.2", Readiness.READY)));
  }

  @Test
  void startingPodsAndEndpointsWithoutAddressesAreNotListed() {
    Endpoint noAddress =
        new EndpointBuilder()
            .withNewConditions()
            .withReady(true)
            .endConditions()
            .withNewTargetRef()
            .withKind("Pod")
            .withName("prefill-2")
            .endTargetRef()
            .build();
    Endpoint noConditions =
        new EndpointBuilder()
            .withAddresses("10.0.0.4")
            .withNewTargetRef()
            .withKind("Pod")
            .withName("prefill-3")
            .endTargetRef()
            .build();
    server.apply(
        slice(
            NS,
            PREFILL_SLICE,
            "demo-prefill",
            ready("prefill-0", "10.0.0.1"),
            endpoint("prefill-1", "10.0.0.2", false, false, false),
            noAddress,
            noConditions));

    startDiscovery(NS);
    waiting().until(discovery::synced);
    assertThat(latest())
        .containsExactly(
            prefill("prefill-0", "10.0.0.1", Readiness.READY),
            prefill("prefill-3", "10.0.0.4", Readiness.READY));

    // The pod passes its readiness probe.
    server.apply(
        slice(
            NS,
            PREFILL_SLICE,
            "demo-prefill",
            ready("prefill-0", "10.0.0.1"),
            ready("prefill-1", "10.0.0.2"),
            noAddress,
            noConditions));
    waiting()
        .untilAsserted(
            () ->
                assertThat(latest())
                    .containsExactly(
                        prefill("prefill-0", "10.0.0.1", Readiness.READY),
                        prefill("prefill-1", "10.0.0.2", Readiness.READY),
                        prefill("prefill-3", "10.0.0.4", Readiness.READY)));
  }

  @Test
  void podInTwoSlicesIsListedOnceAndReadyWins() {
    server.apply(
        slice(
            NS,
            "demo-prefill-a",
            "demo-prefill",
            endpoint("prefill-0", "10.0.0.1", false, true, true),
            ready("prefill-1", "10.0.0.2")));
    server.apply(
        slice(
            NS,
            "demo-prefill-b",
            "demo-prefill",
            ready("prefill-0", "10.0.0.1"),
            ready("prefill-1", "10.0.0.2")));
    // No targetRef: the address is the id; IPv6 gets brackets in URLs.
    Endpoint bare =
        new EndpointBuilder()
            .withAddresses("fd00::7")
            .withNewConditions()
            .withReady(true)
            .endConditions()
            .build();
    server.apply(
        new EndpointSliceBuilder(slice(NS, DECODE_SLICE, "demo-decode", bare))
            .withAddressType("IPv6")
            .build());

    startDiscovery(NS);
    waiting().until(discovery::synced);

    assertThat(latest())
        .containsExactly(
            prefill("prefill-0", "10.0.0.1", Readiness.READY),
            prefill("prefill-1", "10.0.0.2", Readiness.READY),
            new WorkerInfo(
                WorkerId.of("fd00::7"),
                "http://[fd00::7]:8100",
                Role.DECODE,
                "sglang",
                2,
                "tcp://[fd00::7]:5600",
                null,
                Readiness.READY,
                "decode"));
  }

  @Test
  void bookmarksAndUnchangedSlicesDeliverNothing() {
    startWithTwoPrefillsAndOneDecode();
    assertThat(snapshots).hasSize(1);

    server.bookmark();
    // Same content under a new resourceVersion, as after a no-op controller update.
    server.apply(
        slice(
            NS,
            PREFILL_SLICE,
            "demo-prefill",
            ready("prefill-0", "10.0.0.1"),
            ready("prefill-1", "10.0.0.2")));
    // A real change on the same watch: processed after the events above.
    server.apply(slice(NS, PREFILL_SLICE, "demo-prefill", ready("prefill-0", "10.0.0.1")));

    waiting().untilAsserted(() -> assertThat(latest()).hasSize(2));
    assertThat(snapshots).hasSize(2);
    // The bookmark did not break the watch into a relist.
    assertThat(listRequests()).isEqualTo(POOLS.size());
  }

  @Test
  void droppedWatchResumesFromItsResourceVersionWithoutLosingChanges() {
    startWithTwoPrefillsAndOneDecode();
    waiting().until(() -> server.openWatches() == POOLS.size());
    long watchesBefore = watchRequests();

    server.dropWatches();
    // Most likely lands while disconnected (fabric8 reconnects after ~1 s): replayed on resume.
    server.apply(slice(NS, PREFILL_SLICE, "demo-prefill", ready("prefill-0", "10.0.0.1")));

    waiting()
        .untilAsserted(
            () ->
                assertThat(latest())
                    .containsExactly(
                        prefill("prefill-0", "10.0.0.1", Readiness.READY),
                        decode("decode-0", "10.0.1.1", Readiness.READY)));
    waiting().until(() -> watchRequests() > watchesBefore);
    assertThat(listRequests()).isEqualTo(POOLS.size());
  }

  @Test
  void expiredResourceVersionRelistsAndPurgesWhatWasDeletedMeanwhile() {
    startWithTwoPrefillsAndOneDecode();
    waiting().until(() -> server.openWatches() == POOLS.size());

    server.dropWatches();
    server.delete(NS, DECODE_SLICE);
    server.compact(); // the resumed watches get 410 Expired and relist

    waiting()
        .untilAsserted(
            () ->
                assertThat(latest())
                    .containsExactly(
                        prefill("prefill-0", "10.0.0.1", Readiness.READY),
                        prefill("prefill-1", "10.0.0.2", Readiness.READY)));
    waiting().until(() -> listRequests() > POOLS.size());
  }

  @Test
  void keepsRetryingUntilTheApiServerAnswers() {
    server.apply(slice(NS, PREFILL_SLICE, "demo-prefill", ready("prefill-0", "10.0.0.1")));
    server.failWith(403); // e.g. the RoleBinding is not there yet

    startDiscovery(NS);
    waiting().until(() -> server.requests().size() >= POOLS.size());
    assertThat(discovery.synced()).isFalse();
    assertThat(snapshots).isEmpty();

    server.failWith(0);
    waiting().until(discovery::synced);
    assertThat(snapshots)
        .containsExactly(List.of(prefill("prefill-0", "10.0.0.1", Readiness.READY)));
  }

  @Test
  void closeStopsTheWatchesAndTheDeliveries() {
    startWithTwoPrefillsAndOneDecode();
    waiting().until(() -> server.openWatches() == POOLS.size());

    discovery.close();
    server.apply(slice(NS, PREFILL_SLICE, "demo-prefill", ready("prefill-0", "10.0.0.1")));

    // The server notices a closed connection on its next write: keep writing bookmarks.
    waiting()
        .until(
            () -> {
              server.bookmark();
              return server.openWatches() == 0;
            });
    await().during(Duration.ofMillis(300)).until(() -> snapshots.size() == 1);
  }

  private void startWithTwoPrefillsAndOneDecode() {
    server.apply(
        slice(
            NS,
            PREFILL_SLICE,
            "demo-prefill",
            ready("prefill-0", "10.0.0.1"),
            ready("prefill-1", "10.0.0.2")));
    server.apply(slice(NS, DECODE_SLICE, "demo-decode", ready("decode-0", "10.0.1.1")));
    startDiscovery(NS);
    waiting().until(discovery::synced);
    assertThat(latest()).hasSize(3);
  }

  private void startDiscovery(String namespace) {
    client =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder()
                    .withMasterUrl(server.url())
                    .withNamespace(NS)
                    .withTrustCerts(true)
                    .build())
            .build();
    RouterConfig.Discovery config =
        new RouterConfig.Discovery(Backend.KUBERNETES, namespace, POOLS, List.of(), 2000);
    discovery = new KubernetesDiscovery(config, client);
    discovery.start(snapshots::add);
  }

  private long listRequests() {
    return decoded(server.requests()).stream().filter(r -> !r.contains("watch=true")).count();
  }

  private long watchRequests() {
    return decoded(server.requests()).stream().filter(r -> r.contains("watch=true")).count();
  }

  private List<WorkerInfo> latest() {
    return snapshots.isEmpty() ? null : snapshots.get(snapshots.size() - 1);
  }

  private static ConditionFactory waiting() {
    return await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20));
  }

  private static List<String> decoded(List<String> requests) {
    return requests.stream().map(r -> URLDecoder.decode(r, StandardCharsets.UTF_8)).toList();
  }

  private static WorkerInfo prefill(String pod, String ip, Readiness readiness) {
    return new WorkerInfo(
        WorkerId.of(pod),
        "http://" + ip + ":8000",
        Role.PREFILL,
        "vllm",
        1,
        "tcp://" + ip + ":5557",
        "tcp://" + ip + ":5558",
        readiness,
        "prefill");
  }

  private static WorkerInfo decode(String pod, String ip, Readiness readiness) {
    return new WorkerInfo(
        WorkerId.of(pod),
        "http://" + ip + ":8100",
        Role.DECODE,
        "sglang",
        2,
        "tcp://" + ip + ":5600",
        null,
        readiness,
        "decode");
  }

  private static EndpointSlice slice(
      String namespace, String name, String service, Endpoint... endpoints) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .addToLabels(LABEL, service)
        .addToLabels("endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io")
        .endMetadata()
        .withAddressType("IPv4")
        .addNewPort()
        .withName("http")
        .withPort(8000)
        .withProtocol("TCP")
        .endPort()
        .withEndpoints(endpoints)
        .build();
  }

  private static Endpoint ready(String pod, String ip) {
    return endpoint(pod, ip, true, true, false);
  }

  private static Endpoint endpoint(
      String pod, String ip, Boolean ready, Boolean serving, Boolean terminating) {
    return new EndpointBuilder()
        .withAddresses(ip)
        .withNewConditions()
        .withReady(ready)
        .withServing(serving)
        .withTerminating(terminating)
        .endConditions()
        .withNewTargetRef()
        .withKind("Pod")
        .withNamespace(NS)
        .withName(pod)
        .endTargetRef()
        .build();
  }
}
