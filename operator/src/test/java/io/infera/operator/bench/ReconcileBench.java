package io.infera.operator.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.Phase;
import io.infera.operator.render.ResourceParser;
import io.infera.operator.runtime.InferaOperatorRuntime;
import io.infera.operator.runtime.OperatorSettings;
import io.infera.operator.testing.FakeRouters;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.MockCluster;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * How the operator scales on fabric8's mock API server (CRUD mode, server-side apply off): time for
 * N InferaDeployments (the sim sample: 10 children each) to reach steady state, requests during
 * steady-state resyncs (target: 0 writes), and the operator's heap.
 *
 * <p>Run (from the repository root):
 *
 * <pre>
 * ./mvnw -B -q -pl operator test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
 * java -Xmx1g -Dinfera.repo.root=. \
 *     -cp operator/target/test-classes:operator/target/classes:$(cat operator/target/test.classpath) \
 *     io.infera.operator.bench.ReconcileBench [count] [resync-ms] [window-s]
 * </pre>
 */
public final class ReconcileBench {

  private static final String NS = "bench";

  private ReconcileBench() {}

  public static void main(String[] args) throws Exception {
    int code = 1;
    try {
      run(args);
      code = 0;
    } finally {
      // The mock server's Vert.x threads would keep the JVM alive.
      System.exit(code);
    }
  }

  private static void run(String[] args) throws Exception {
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    Duration resync = Duration.ofMillis(args.length > 1 ? Long.parseLong(args[1]) : 2000);
    Duration window = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 10);
    try (MockCluster cluster = new MockCluster();
        FakeRouters routers = new FakeRouters()) {
      KubernetesClient client = cluster.client();
      InferaDeployment template =
          ResourceParser.parse(Fixtures.read(Fixtures.sample("sim.yaml")), "sim.yaml");
      for (int i = 0; i < count; i++) {
        routers.answer(NS, name(i), 200, FakeRouters.status(3, 1000 + i, 0.05, 0.5, false));
      }
      OperatorSettings settings =
          OperatorSettings.defaults()
              .withServerSideApply(false)
              .withResync(resync)
              .withRouterStatus(routers.urlTemplate(), Duration.ofSeconds(1));
      long heapBaseline = usedHeapAfterGc();
      InferaOperatorRuntime operator =
          InferaOperatorRuntime.start(client, settings, new SimpleMeterRegistry(), false);

      long t0 = System.nanoTime();
      for (int i = 0; i < count; i++) {
        InferaDeployment idep =
            ResourceParser.parse(Fixtures.read(Fixtures.sample("sim.yaml")), "x");
        idep.getMetadata().setName(name(i));
        idep.getMetadata().setNamespace(NS);
        client.resource(idep).create();
      }
      waitFor(client, count, s -> s.getObservedGeneration() != null, Duration.ofMinutes(5));
      long children = children(client);
      double created = seconds(t0);
      System.out.printf(
          Locale.ROOT,
          "converged: %d InferaDeployments, %d children, status at generation 1 after %.2f s%n",
          count,
          children,
          created);

      // Play the workload controllers; every fleet becomes Ready with the routers' view.
      long t1 = System.nanoTime();
      for (int i = 0; i < count; i++) {
        cluster.rollOut(NS, name(i));
      }
      waitFor(
          client,
          count,
          s ->
              s.getPhase() == Phase.READY
                  && s.getRouter() != null
                  && s.getRouter().getWorkers() != null,
          Duration.ofMinutes(5));
      System.out.printf(
          Locale.ROOT,
          "ready: all %d Ready with the routers' view %.2f s after the roll-out (%.2f s from create)%n",
          count,
          seconds(t1),
          seconds(t0));

      // Steady state: let the last events settle, then count what the resyncs send.
      Thread.sleep(resync.toMillis() * 2);
      cluster.clearRequests();
      int hitsBefore = totalHits(routers, count);
      Thread.sleep(window.toMillis());
      List<String> requests = cluster.takeRequests();
      int resyncs = totalHits(routers, count) - hitsBefore;
      Map<String, Integer> byMethod = new TreeMap<>();
      for (String r : requests) {
        byMethod.merge(r.substring(0, r.indexOf(' ')), 1, Integer::sum);
      }
      long writes =
          requests.stream()
              .filter(
                  r ->
                      r.startsWith("POST")
                          || r.startsWith("PUT")
                          || r.startsWith("PATCH")
                          || r.startsWith("DELETE"))
              .count();
      System.out.printf(
          Locale.ROOT,
          "steady state: %d s window, resync %d ms, %d reconciliations (router status reads), "
              + "%d API requests %s, writes: %d%n",
          window.toSeconds(),
          resync.toMillis(),
          resyncs,
          requests.size(),
          byMethod,
          writes);
      requests.stream()
          .filter(r -> !r.startsWith("GET"))
          .limit(20)
          .forEach(r -> System.out.println("  write: " + r));

      long heapWith = usedHeapAfterGc();
      operator.close();
      long heapWithout = usedHeapAfterGc();
      System.out.printf(
          Locale.ROOT,
          "heap after GC: %.1f MiB with the operator running (mock server and %d objects in the"
              + " same JVM), %.1f MiB after stopping it: the operator holds about %.1f MiB"
              + " (baseline before start: %.1f MiB)%n",
          mib(heapWith),
          children + count,
          mib(heapWithout),
          mib(heapWith - heapWithout),
          mib(heapBaseline));
    }
  }

  private static String name(int i) {
    return String.format(Locale.ROOT, "idep-%03d", i);
  }

  private static int totalHits(FakeRouters routers, int count) {
    int n = 0;
    for (int i = 0; i < count; i++) {
      n += routers.hits(NS, name(i));
    }
    return n;
  }

  private static long children(KubernetesClient client) {
    return client.configMaps().inNamespace(NS).list().getItems().size()
        + client.serviceAccounts().inNamespace(NS).list().getItems().size()
        + client.rbac().roles().inNamespace(NS).list().getItems().size()
        + client.rbac().roleBindings().inNamespace(NS).list().getItems().size()
        + client.apps().deployments().inNamespace(NS).list().getItems().size()
        + client.services().inNamespace(NS).list().getItems().size()
        + client.apps().statefulSets().inNamespace(NS).list().getItems().size();
  }

  private static void waitFor(
      KubernetesClient client,
      int count,
      Predicate<io.infera.operator.api.v1alpha1.InferaDeploymentStatus> p,
      Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < deadline) {
      List<InferaDeployment> all =
          client.resources(InferaDeployment.class).inNamespace(NS).list().getItems();
      long ok = all.stream().filter(i -> i.getStatus() != null && p.test(i.getStatus())).count();
      if (ok == count && children(client) >= 10L * count) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("not converged within " + max);
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  private static double mib(long bytes) {
    return bytes / 1048576.0;
  }
}
