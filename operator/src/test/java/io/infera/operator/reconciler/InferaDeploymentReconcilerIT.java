package io.infera.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.infera.operator.api.v1alpha1.Conditions;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.InferaDeploymentStatus;
import io.infera.operator.api.v1alpha1.Phase;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.desired.DesiredFleet;
import io.infera.operator.desired.DesiredRouter;
import io.infera.operator.desired.DesiredRouterConfig;
import io.infera.operator.desired.Fleet;
import io.infera.operator.desired.Labels;
import io.infera.operator.desired.Names;
import io.infera.operator.desired.RenderInputs;
import io.infera.operator.render.ResourceParser;
import io.infera.operator.runtime.InferaOperatorRuntime;
import io.infera.operator.runtime.OperatorSettings;
import io.infera.operator.status.StatusAggregator;
import io.infera.operator.testing.FakeRouters;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.MockCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The reconciler against fabric8's mock API server (CRUD mode, server-side apply off): every test
 * uses its own namespace, one operator serves them all.
 */
class InferaDeploymentReconcilerIT {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final KubernetesSerialization JSON = new KubernetesSerialization();

  private static MockCluster cluster;
  private static KubernetesClient client;
  private static FakeRouters routers;
  private static InferaOperatorRuntime operator;

  @BeforeAll
  static void start() throws Exception {
    cluster = new MockCluster();
    client = cluster.client();
    routers = new FakeRouters();
    OperatorSettings settings =
        OperatorSettings.defaults()
            .withServerSideApply(false)
            .withResync(Duration.ofMillis(300))
            .withRouterStatus(routers.urlTemplate(), Duration.ofSeconds(1));
    operator = InferaOperatorRuntime.start(client, settings, new SimpleMeterRegistry(), false);
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (routers != null) {
      routers.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  // ---------------------------------------------------------------- create

  @Test
  void createsEveryChildWithNamesLabelsAndOwnerReference() {
    InferaDeployment idep = apply("create", "sim.yaml");
    String ns = "create";
    Fleet desired = desired(idep);

    await().atMost(WAIT).untilAsserted(() -> assertThat(children(ns)).hasSize(14));
    Map<String, HasMetadata> actual = children(ns);
    assertThat(actual.keySet())
        .containsExactlyInAnyOrder(
            "ConfigMap/sim-nats",
            "ConfigMap/sim-router",
            "ServiceAccount/sim-router",
            "Role/sim-router",
            "RoleBinding/sim-router",
            "Deployment/sim-router",
            "Service/sim-router",
            "StatefulSet/sim-nats",
            "Service/sim-nats",
            "Deployment/sim-workers",
            "Service/sim-workers",
            "NetworkPolicy/sim-nats",
            "NetworkPolicy/sim-router",
            "NetworkPolicy/sim-workers");
    for (HasMetadata want : desired.all()) {
      HasMetadata got = actual.get(want.getKind() + "/" + want.getMetadata().getName());
      assertThat(got).as(want.getKind() + " " + want.getMetadata().getName()).isNotNull();
      assertThat(got.getMetadata().getLabels())
          .containsEntry(Labels.MANAGED_BY, "infera-operator")
          .containsEntry(Labels.PART_OF, "infera")
          .containsEntry(Labels.DEPLOYMENT, "sim")
          .containsAllEntriesOf(want.getMetadata().getLabels());
      assertThat(got.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(
              (OwnerReference o) -> {
                assertThat(o.getUid()).isEqualTo(idep.getMetadata().getUid());
                assertThat(o.getKind()).isEqualTo("InferaDeployment");
                assertThat(o.getController()).isTrue();
              });
      // The same objects `render` prints: the builders are the one source of truth.
      assertThat(body(got)).as(want.getKind()).isEqualTo(body(want));
    }
    assertThat(actual.get("Deployment/sim-workers").getMetadata().getLabels())
        .containsEntry(Labels.COMPONENT, "worker")
        .containsEntry(Labels.POOL, "workers")
        .containsEntry(Labels.ROLE, "mixed");

    InferaDeployment seen = awaitStatus(ns, "sim", s -> s.getPhase() == Phase.PENDING);
    assertThat(seen.getStatus().getObservedGeneration()).isEqualTo(1L);
    assertThat(seen.getStatus().getConditions())
        .extracting(Condition::getType)
        .containsExactly(
            "Ready", "Progressing", "Degraded", "EventsFlowing", "IndexAccurate", "RenderParity");
    assertThat(seen.getStatus().getConditions())
        .allSatisfy(c -> assertThat(c.getObservedGeneration()).isEqualTo(1L));
    assertThat(seen.getSpec().getPools()).hasSize(1);
  }

  // ---------------------------------------------------------------- scale

  @Test
  void scalingAPoolChangesOnlyItsDeployment() {
    String ns = "scale";
    apply(ns, "sim.yaml");
    await().atMost(WAIT).until(() -> deployment(ns, "sim-workers") != null);
    awaitStatus(ns, "sim", s -> s.getObservedGeneration() == 1L);
    Map<String, String> before = versions(ns);

    edit(
        ns,
        "sim",
        i -> {
          i.getSpec().getPools().get(0).setReplicas(5);
          return i;
        });

    await().atMost(WAIT).until(() -> deployment(ns, "sim-workers").getSpec().getReplicas() == 5);
    InferaDeployment seen = awaitStatus(ns, "sim", s -> s.getObservedGeneration() == 2L);
    assertThat(seen.getStatus().getPools())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("workers");
              assertThat(p.getReplicas()).isEqualTo(5);
            });
    assertThat(seen.getStatus().getWorkersSummary()).isEqualTo("0/5");
    Map<String, String> after = versions(ns);
    assertThat(changed(before, after)).containsExactly("Deployment/sim-workers");
  }

  // ---------------------------------------------------------------- page size

  @Test
  void pageSizeChangeMovesEveryPoolAndTheRouterConfigTogether() {
    String ns = "pagesize";
    apply(ns, "sglang-pd.yaml");
    String name = parse("sglang-pd.yaml").getMetadata().getName();
    String router = Names.router(name);
    await().atMost(WAIT).until(() -> deployment(ns, router) != null);
    awaitStatus(ns, name, s -> s.getObservedGeneration() == 1L);
    String hashBefore = configHash(deployment(ns, router));
    List<String> pools =
        parse("sglang-pd.yaml").getSpec().getPools().stream().map(PoolSpec::getName).toList();
    assertThat(pools).hasSizeGreaterThan(1);
    int old = parse("sglang-pd.yaml").getSpec().getPageSize();
    int next = old == 32 ? 16 : 32;
    for (String p : pools) {
      assertThat(engineArgs(deployment(ns, Names.pool(name, p))))
          .containsSubsequence("--page-size", Integer.toString(old));
    }

    InferaDeployment edited =
        edit(
            ns,
            name,
            i -> {
              i.getSpec().setPageSize(next);
              return i;
            });

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              for (String p : pools) {
                List<String> args = engineArgs(deployment(ns, Names.pool(name, p)));
                assertThat(args).containsSubsequence("--page-size", Integer.toString(next));
                assertThat(args).doesNotContainSequence("--page-size", Integer.toString(old));
              }
              ConfigMap cm = client.configMaps().inNamespace(ns).withName(router).get();
              assertThat(cm.getData().get(Names.ROUTER_CONFIG_KEY)).contains("pageSize: " + next);
              String hash = configHash(deployment(ns, router));
              assertThat(hash).isNotEqualTo(hashBefore);
              assertThat(hash).isEqualTo(DesiredRouterConfig.hash(RenderInputs.of(edited)));
            });
  }

  private static String configHash(Deployment d) {
    return d.getSpec()
        .getTemplate()
        .getMetadata()
        .getAnnotations()
        .get(DesiredRouter.CONFIG_HASH_ANNOTATION);
  }

  private static List<String> engineArgs(Deployment d) {
    var c =
        d.getSpec().getTemplate().getSpec().getContainers().stream()
            .filter(x -> x.getName().equals(Names.ENGINE_CONTAINER))
            .findFirst()
            .orElseThrow();
    List<String> all = new ArrayList<>();
    if (c.getCommand() != null) {
      all.addAll(c.getCommand());
    }
    if (c.getArgs() != null) {
      all.addAll(c.getArgs());
    }
    return all;
  }

  // ---------------------------------------------------------------- invalid args

  @Test
  void contradictingPoolArgsAreRefusedWithoutTouchingAChild() {
    String ns = "invalid";
    apply(ns, "vllm-mixed.yaml");
    String name = parse("vllm-mixed.yaml").getMetadata().getName();
    String pool = parse("vllm-mixed.yaml").getSpec().getPools().get(0).getName();
    await().atMost(WAIT).until(() -> children(ns).size() >= 8);
    InferaDeployment ok = awaitStatus(ns, name, s -> s.getObservedGeneration() == 1L);
    String degradedSince = condition(ok, Conditions.DEGRADED).getLastTransitionTime();
    Map<String, String> before = versions(ns);

    edit(
        ns,
        name,
        i -> {
          List<String> args = new ArrayList<>(i.getSpec().getPools().get(0).getArgs());
          args.add("--block-size");
          args.add("32");
          i.getSpec().getPools().get(0).setArgs(args);
          i.getSpec().getPools().get(0).setReplicas(7); // would scale, were the spec valid
          return i;
        });

    InferaDeployment refused =
        awaitStatus(
            ns, name, s -> s.getObservedGeneration() == 2L && s.getPhase() == Phase.DEGRADED);
    Condition degraded = condition(refused, Conditions.DEGRADED);
    assertThat(degraded.getStatus()).isEqualTo("True");
    assertThat(degraded.getReason()).isEqualTo("InvalidSpec");
    assertThat(degraded.getMessage()).contains("pool '" + pool + "'").contains("--block-size");
    assertThat(degraded.getObservedGeneration()).isEqualTo(2L);
    assertThat(degraded.getLastTransitionTime()).isNotNull();
    assertThat(condition(refused, Conditions.READY).getReason()).isEqualTo("InvalidSpec");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(events(ns))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getReason()).isEqualTo("InvalidSpec");
                          assertThat(e.getMessage()).contains(pool).contains("--block-size");
                          assertThat(e.getInvolvedObject().getName()).isEqualTo(name);
                          assertThat(e.getInvolvedObject().getUid())
                              .isEqualTo(refused.getMetadata().getUid());
                        }));
    // Several resyncs later: still one event, and no child was written.
    int hits = routers.hits(ns, name);
    sleep(1200);
    assertThat(events(ns)).hasSize(1);
    assertThat(versions(ns)).isEqualTo(before);
    assertThat(deployment(ns, Names.pool(name, pool)).getSpec().getReplicas()).isNotEqualTo(7);
    assertThat(routers.hits(ns, name)).isEqualTo(hits); // no router ready: never asked

    // Fixed: the pool scales, Degraded flips back (a new transition time).
    edit(
        ns,
        name,
        i -> {
          List<String> args = new ArrayList<>(i.getSpec().getPools().get(0).getArgs());
          args.removeAll(List.of("--block-size", "32"));
          i.getSpec().getPools().get(0).setArgs(args);
          return i;
        });
    InferaDeployment fixed =
        awaitStatus(
            ns, name, s -> s.getObservedGeneration() == 3L && s.getPhase() != Phase.DEGRADED);
    assertThat(condition(fixed, Conditions.DEGRADED).getStatus()).isEqualTo("False");
    assertThat(condition(fixed, Conditions.DEGRADED).getLastTransitionTime())
        .isGreaterThanOrEqualTo(degradedSince);
    await()
        .atMost(WAIT)
        .until(() -> deployment(ns, Names.pool(name, pool)).getSpec().getReplicas() == 7);
  }

  private static List<Event> events(String ns) {
    return client.v1().events().inNamespace(ns).list().getItems();
  }

  // ---------------------------------------------------------------- delete a pool

  @Test
  void removingAPoolDeletesItsDeploymentAndService() {
    String ns = "delete";
    apply(ns, "sim.yaml");
    awaitStatus(ns, "sim", s -> s.getObservedGeneration() == 1L);
    edit(
        ns,
        "sim",
        i -> {
          PoolSpec extra = new PoolSpec();
          extra.setName("extra");
          extra.setReplicas(1);
          List<PoolSpec> pools = new ArrayList<>(i.getSpec().getPools());
          pools.add(extra);
          i.getSpec().setPools(pools);
          return i;
        });
    await()
        .atMost(WAIT)
        .until(() -> deployment(ns, "sim-extra") != null && deployment(ns, "sim-workers") != null);
    await().atMost(WAIT).until(() -> children(ns).size() == 17);

    edit(
        ns,
        "sim",
        i -> {
          i.getSpec().getPools().removeIf(p -> p.getName().equals("extra"));
          return i;
        });

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(deployment(ns, "sim-extra")).isNull();
              assertThat(client.services().inNamespace(ns).withName("sim-extra").get()).isNull();
              assertThat(
                      client
                          .network()
                          .v1()
                          .networkPolicies()
                          .inNamespace(ns)
                          .withName("sim-extra")
                          .get())
                  .isNull();
            });
    // Nothing else went: the router's and NATS' objects share the pools' informers and kinds.
    assertThat(children(ns).keySet())
        .containsExactlyInAnyOrder(
            "ConfigMap/sim-nats",
            "ConfigMap/sim-router",
            "ServiceAccount/sim-router",
            "Role/sim-router",
            "RoleBinding/sim-router",
            "Deployment/sim-router",
            "Service/sim-router",
            "StatefulSet/sim-nats",
            "Service/sim-nats",
            "NetworkPolicy/sim-nats",
            "NetworkPolicy/sim-router",
            "NetworkPolicy/sim-workers",
            "Deployment/sim-workers",
            "Service/sim-workers");
    InferaDeployment seen = awaitStatus(ns, "sim", s -> s.getObservedGeneration() == 3L);
    assertThat(seen.getStatus().getPools())
        .as(JSON.asJson(seen.getStatus()))
        .extracting(p -> p.getName())
        .containsExactly("workers");
  }

  // ---------------------------------------------------------------- router view

  @Test
  void routerViewIsFoldedIntoTheStatus() {
    String ns = "view";
    apply(ns, "sim.yaml");
    await().atMost(WAIT).until(() -> children(ns).size() == 14);
    routers.answer(ns, "sim", 200, FakeRouters.status(3, 4200, 0.25, 0.4567, false));
    cluster.rollOut(ns, "sim");

    InferaDeployment ready =
        awaitStatus(
            ns,
            "sim",
            s ->
                s.getPhase() == Phase.READY
                    && s.getRouter() != null
                    && s.getRouter().getWorkers() != null);
    var r = ready.getStatus().getRouter();
    assertThat(r.getReplicas()).isEqualTo(2);
    assertThat(r.getReadyReplicas()).isEqualTo(2);
    assertThat(r.getWorkers()).isEqualTo(3);
    assertThat(r.getIndexedBlocks()).isEqualTo(4200L);
    assertThat(r.getEventLagSeconds()).isEqualTo(0.3);
    assertThat(r.getHitRatio()).isEqualTo(0.457);
    assertThat(ready.getStatus().getHitPercent()).isEqualTo("45.7%");
    assertThat(ready.getStatus().getRoutersSummary()).isEqualTo("2/2");
    assertThat(ready.getStatus().getWorkersSummary()).isEqualTo("3/3");
    assertThat(condition(ready, Conditions.READY).getStatus()).isEqualTo("True");
    assertThat(condition(ready, Conditions.EVENTS_FLOWING).getStatus()).isEqualTo("True");
    assertThat(condition(ready, Conditions.PROGRESSING).getStatus()).isEqualTo("False");

    // A gap at one source: EventsFlowing turns False.
    routers.answer(ns, "sim", 200, FakeRouters.status(3, 4200, 0.25, 0.4567, true));
    InferaDeployment gap =
        awaitStatus(ns, "sim", s -> "False".equals(statusOf(s, Conditions.EVENTS_FLOWING)));
    assertThat(condition(gap, Conditions.EVENTS_FLOWING).getReason()).isEqualTo("SourcesDegraded");

    // The routers stop answering: the view is unknown, the rest of the status stays.
    routers.answer(ns, "sim", 500, "{\"error\":\"boom\"}");
    InferaDeployment unknown =
        awaitStatus(ns, "sim", s -> "Unknown".equals(statusOf(s, Conditions.EVENTS_FLOWING)));
    assertThat(condition(unknown, Conditions.EVENTS_FLOWING).getReason())
        .isEqualTo("RouterStatusUnavailable");
    assertThat(condition(unknown, Conditions.EVENTS_FLOWING).getMessage()).contains("HTTP 500");
    assertThat(unknown.getStatus().getRouter().getWorkers()).isNull();
    assertThat(unknown.getStatus().getHitPercent()).isNull();
    assertThat(unknown.getStatus().getPhase()).isEqualTo(Phase.READY);
  }

  private static String statusOf(InferaDeploymentStatus s, String type) {
    Condition c = StatusAggregator.find(s.getConditions(), type);
    return c == null ? null : c.getStatus();
  }

  // ---------------------------------------------------------------- steady state

  @Test
  void steadyStateResyncWritesNothing() throws Exception {
    String ns = "steady";
    apply(ns, "sglang-pd.yaml");
    String name = parse("sglang-pd.yaml").getMetadata().getName();
    await().atMost(WAIT).until(() -> children(ns).size() >= 9);
    routers.answer(ns, name, 200, FakeRouters.status(4, 1000, 0.1, 0.5, false));
    cluster.rollOut(ns, name);
    awaitStatus(ns, name, s -> s.getPhase() == Phase.READY && s.getRouter().getWorkers() != null);
    // Let in-flight reconciliations (from the roll-out's events) settle.
    sleep(1000);

    cluster.clearRequests();
    int before = routers.hits(ns, name);
    sleep(2000);
    List<String> requests = cluster.takeRequests();
    int resyncs = routers.hits(ns, name) - before;

    // Every resync asks the routers once: several happened in the window.
    assertThat(resyncs).isGreaterThanOrEqualTo(3);
    assertThat(requests)
        .as("requests at the API server during %d steady-state resyncs", resyncs)
        .noneMatch(
            r ->
                r.startsWith("POST")
                    || r.startsWith("PUT")
                    || r.startsWith("PATCH")
                    || r.startsWith("DELETE"));
  }

  // ---------------------------------------------------------------- NATS credentials

  @Test
  void theNatsCredentialsAreGeneratedOnceAndKeptAcrossResyncs() throws Exception {
    String ns = "natsauth";
    InferaDeployment idep = apply(ns, "sim.yaml");
    String name = idep.getMetadata().getName();
    String secret = name + "-nats-auth";
    await()
        .atMost(WAIT)
        .until(() -> client.secrets().inNamespace(ns).withName(secret).get() != null);
    io.fabric8.kubernetes.api.model.Secret first =
        client.secrets().inNamespace(ns).withName(secret).get();
    assertThat(first.getData()).containsOnlyKeys("router", "relay-workers");
    assertThat(first.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(idep.getMetadata().getUid()));
    for (String v : first.getData().values()) {
      String password =
          new String(
              java.util.Base64.getDecoder().decode(v), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(password).matches("[A-Za-z][A-Za-z0-9]{39}");
    }
    // Several resyncs (every 300 ms): the same passwords.
    sleep(2000);
    assertThat(client.secrets().inNamespace(ns).withName(secret).get().getData())
        .isEqualTo(first.getData());
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Deployment deployment(String ns, String name) {
    return client.apps().deployments().inNamespace(ns).withName(name).get();
  }

  /** resourceVersion of every child, by kind/name. */
  private static Map<String, String> versions(String ns) {
    Map<String, String> out = new TreeMap<>();
    children(ns).forEach((k, v) -> out.put(k, v.getMetadata().getResourceVersion()));
    return out;
  }

  private static List<String> changed(Map<String, String> before, Map<String, String> after) {
    List<String> out = new ArrayList<>();
    after.forEach(
        (k, v) -> {
          if (!v.equals(before.get(k))) {
            out.add(k);
          }
        });
    before.keySet().stream().filter(k -> !after.containsKey(k)).forEach(out::add);
    return out;
  }

  private static Map<String, HasMetadata> children(String ns) {
    Map<String, HasMetadata> out = new TreeMap<>();
    List<HasMetadata> all = new ArrayList<>();
    all.addAll(client.configMaps().inNamespace(ns).list().getItems());
    all.addAll(client.serviceAccounts().inNamespace(ns).list().getItems());
    all.addAll(client.rbac().roles().inNamespace(ns).list().getItems());
    all.addAll(client.rbac().roleBindings().inNamespace(ns).list().getItems());
    all.addAll(client.apps().deployments().inNamespace(ns).list().getItems());
    all.addAll(client.services().inNamespace(ns).list().getItems());
    all.addAll(client.apps().statefulSets().inNamespace(ns).list().getItems());
    all.addAll(client.network().v1().networkPolicies().inNamespace(ns).list().getItems());
    for (HasMetadata h : all) {
      out.put(h.getKind() + "/" + h.getMetadata().getName(), h);
    }
    return out;
  }

  /** Everything but metadata and status, as JSON. */
  private static String body(HasMetadata h) {
    @SuppressWarnings("unchecked")
    Map<String, Object> m = new TreeMap<>(JSON.convertValue(h, Map.class));
    m.remove("metadata");
    m.remove("status");
    m.remove("apiVersion");
    return JSON.asJson(m);
  }

  // ---------------------------------------------------------------- helpers

  static InferaDeployment apply(String ns, String sample) {
    InferaDeployment idep = parse(sample);
    idep.getMetadata().setNamespace(ns);
    idep.getMetadata().setUid(null);
    return client.resource(idep).create();
  }

  static InferaDeployment parse(String sample) {
    try {
      return ResourceParser.parse(Fixtures.read(Fixtures.sample(sample)), sample);
    } catch (ResourceParser.ParseException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  static Fleet desired(InferaDeployment idep) {
    return DesiredFleet.fleet(RenderInputs.of(idep));
  }

  static InferaDeployment get(String ns, String name) {
    return client.resources(InferaDeployment.class).inNamespace(ns).withName(name).get();
  }

  static InferaDeployment edit(String ns, String name, UnaryOperator<InferaDeployment> f) {
    // The operator writes the status meanwhile: a stale resourceVersion gets 409, read again.
    for (int attempt = 1; ; attempt++) {
      try {
        return client.resources(InferaDeployment.class).inNamespace(ns).withName(name).edit(f);
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == 5) {
          throw e;
        }
      }
    }
  }

  static InferaDeployment awaitStatus(String ns, String name, Predicate<InferaDeploymentStatus> p) {
    InferaDeployment[] seen = new InferaDeployment[1];
    await()
        .atMost(WAIT)
        .until(
            () -> {
              seen[0] = get(ns, name);
              return seen[0] != null && seen[0].getStatus() != null && p.test(seen[0].getStatus());
            });
    return seen[0];
  }

  static Condition condition(InferaDeployment idep, String type) {
    return StatusAggregator.find(idep.getStatus().getConditions(), type);
  }
}
