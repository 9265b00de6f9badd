package io.infera.operator.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectRulesReviewBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.docs.DocsText;
import io.infera.operator.render.ResourceParser;
import io.infera.operator.runtime.OperatorSettings;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.MockCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code infera-operator run} as wired for production (probe server, metrics, leader election)
 * against the mock API server, with server-side apply switched off by its flag.
 */
class RunCommandIT {

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void runsWithLeaderElectionProbesAndMetrics() throws Exception {
    try (MockCluster cluster = new MockCluster()) {
      // The mock server has no authorizer: answer the operator's lease permission check.
      cluster
          .server()
          .expect()
          .post()
          .withPath("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews")
          .andReturn(
              201,
              new SelfSubjectRulesReviewBuilder()
                  .withNewStatus()
                  .withIncomplete(false)
                  .addNewResourceRule()
                  .withApiGroups("coordination.k8s.io")
                  .withResources("leases")
                  .withVerbs("get", "create", "update")
                  .endResourceRule()
                  .endStatus()
                  .build())
          .always();

      RunCommand cmd = new RunCommand();
      new CommandLine(cmd)
          .parseArgs(
              "--no-server-side-apply",
              "--leader-election",
              "--lease-namespace=ops",
              "--http-host=127.0.0.1",
              "--http-port=0",
              "--namespace=llm",
              "--resync=500ms");
      OperatorSettings settings = cmd.settings();
      assertThat(settings.serverSideApply()).isFalse();
      assertThat(settings.namespaces()).containsExactly("llm");
      assertThat(settings.leaderElection())
          .contains(new OperatorSettings.LeaderElection("infera-operator-lock", "ops"));

      try (RunCommand.Running running = cmd.start(settings, cluster.server().createClient())) {
        int port = running.probes().port();
        assertThat(get(port, "/healthz").statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).until(() -> running.operator().leading());
        assertThat(get(port, "/readyz").statusCode()).isEqualTo(200);
        Lease lease =
            cluster.client().leases().inNamespace("ops").withName("infera-operator-lock").get();
        assertThat(lease).isNotNull();
        assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();

        InferaDeployment idep =
            ResourceParser.parse(Fixtures.read(Fixtures.sample("sim.yaml")), "sim.yaml");
        idep.getMetadata().setNamespace("llm");
        cluster.client().resource(idep).create();
        // Another namespace is not watched.
        idep.getMetadata().setNamespace("elsewhere");
        idep.getMetadata().setResourceVersion(null);
        cluster.client().resource(idep).create();

        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    cluster
                            .client()
                            .apps()
                            .deployments()
                            .inNamespace("llm")
                            .withName("sim-router")
                            .get()
                        != null);
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () ->
                    assertThat(get(port, "/metrics").body())
                        .contains("operator_sdk_reconciliations_started_total")
                        .contains("operator_sdk_reconciliations_success_total")
                        .contains("jvm_memory_used_bytes"));
        // Every operator metric the docs name is served.
        Set<String> documented =
            DocsText.mentioned(
                Pattern.compile(
                    "`((?:operator_sdk|jvm|process|system)_[a-z0-9_]+)(?:\\{[^`]*\\})?`"));
        assertThat(documented).hasSizeGreaterThan(5);
        // jvm_gc_pause_seconds is registered with the first collection the JVM reports; a quiet
        // test JVM may not have collected yet, so ask for one until the notification has arrived.
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () -> {
                  System.gc();
                  String scrape = get(port, "/metrics").body();
                  assertThat(documented.stream().filter(n -> !served(scrape, n)).toList())
                      .as("operator metrics the docs name that /metrics does not serve")
                      .isEmpty();
                });
        Deployment other =
            cluster
                .client()
                .apps()
                .deployments()
                .inNamespace("elsewhere")
                .withName("sim-router")
                .get();
        assertThat(other).isNull();
      }
      // Stopped: the probe port is closed.
    }
  }

  /** Whether {@code name} is a sample or TYPE name of the exposition. */
  private static boolean served(String exposition, String name) {
    for (String line : exposition.split("\n")) {
      String n = line.startsWith("# TYPE ") ? line.split(" ")[2] : line.split("[{ ]", 2)[0];
      if (n.equals(name)) {
        return true;
      }
    }
    return false;
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
