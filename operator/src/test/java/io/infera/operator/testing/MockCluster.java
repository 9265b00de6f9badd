package io.infera.operator.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.infera.operator.desired.Labels;
import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.TimeUnit;

/**
 * fabric8's mock API server in CRUD mode with the InferaDeployment CRD installed, plus what a real
 * cluster's controllers would do that the mock does not (marking workloads rolled out), and a log
 * of the requests it served.
 */
public final class MockCluster implements AutoCloseable {

  /** The mock server logs every request at INFO through java.util.logging: keep it quiet. */
  private static final java.util.logging.Logger MOCK_LOG =
      java.util.logging.Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_LOG.setLevel(java.util.logging.Level.WARNING);
  }

  private final KubernetesMockServer server;
  private final NamespacedKubernetesClient client;

  public MockCluster() {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    server =
        new KubernetesMockServer(
            new Context(Serialization.jsonMapper()),
            new MockWebServer(),
            responses,
            new KubernetesMixedDispatcher(responses),
            false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    client = server.createClient();
    CustomResourceDefinition crd =
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .load(
                new ByteArrayInputStream(
                    Fixtures.read(
                            Fixtures.repoRoot().resolve("crds/inferadeployments.infera.io-v1.yml"))
                        .getBytes(StandardCharsets.UTF_8)))
            .item();
    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
  }

  public KubernetesMockServer server() {
    return server;
  }

  public NamespacedKubernetesClient client() {
    return client;
  }

  /** Forgets the requests served so far (they are recorded in a queue). */
  public void clearRequests() throws InterruptedException {
    while (server.takeRequest(1, TimeUnit.MILLISECONDS) != null) {
      // drain
    }
  }

  /**
   * {@code METHOD path} of every request served since the last call (or {@link #clearRequests}).
   */
  public List<String> takeRequests() throws InterruptedException {
    List<String> out = new ArrayList<>();
    RecordedRequest r;
    while ((r = server.takeRequest(1, TimeUnit.MILLISECONDS)) != null) {
      out.add(r.getMethod() + " " + r.getPath());
    }
    return out;
  }

  /**
   * Plays the Deployment and StatefulSet controllers for every workload of {@code idep} in {@code
   * ns}: all replicas updated, ready and available at the current generation.
   */
  public void rollOut(String ns, String idep) {
    for (Deployment d :
        client
            .apps()
            .deployments()
            .inNamespace(ns)
            .withLabel(Labels.DEPLOYMENT, idep)
            .list()
            .getItems()) {
      int n = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
      d.setStatus(
          new DeploymentStatusBuilder()
              .withObservedGeneration(d.getMetadata().getGeneration())
              .withReplicas(n)
              .withUpdatedReplicas(n)
              .withReadyReplicas(n)
              .withAvailableReplicas(n)
              .build());
      client.apps().deployments().inNamespace(ns).resource(d).updateStatus();
    }
    for (StatefulSet s :
        client
            .apps()
            .statefulSets()
            .inNamespace(ns)
            .withLabel(Labels.DEPLOYMENT, idep)
            .list()
            .getItems()) {
      int n = s.getSpec().getReplicas() == null ? 1 : s.getSpec().getReplicas();
      s.setStatus(
          new StatefulSetStatusBuilder()
              .withObservedGeneration(s.getMetadata().getGeneration())
              .withReplicas(n)
              .withCurrentReplicas(n)
              .withUpdatedReplicas(n)
              .withReadyReplicas(n)
              .withAvailableReplicas(n)
              .withCurrentRevision("r1")
              .withUpdateRevision("r1")
              .build());
      client.apps().statefulSets().inNamespace(ns).resource(s).updateStatus();
    }
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
