package io.infera.operator.desired;

import static io.infera.operator.testing.Fixtures.fleet;
import static io.infera.operator.testing.Fixtures.idep;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolRole;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rendered children hold what the API server would default inside atomic fields: otherwise the
 * stored object never matches the applied one and every reconcile applies it again (seen on a real
 * API server, where each resync patched every Deployment and the NATS StatefulSet).
 */
class ServerDefaultsTest {

  @Test
  void everyFieldRefNamesItsApiVersion() {
    for (InferaDeployment idep :
        List.of(
            idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE),
            idep(Engine.SGLANG, PoolRole.MIXED),
            idep(Engine.SIM, PoolRole.MIXED))) {
      List<EnvVar> refs = new ArrayList<>();
      for (HasMetadata o : fleet(idep).all()) {
        for (Container c : containers(o)) {
          for (EnvVar e : c.getEnv()) {
            if (e.getValueFrom() != null && e.getValueFrom().getFieldRef() != null) {
              refs.add(e);
            }
          }
        }
      }
      assertThat(refs).as("POD_NAME of the relays, NATS' server name").isNotEmpty();
      assertThat(refs)
          .allSatisfy(
              e -> assertThat(e.getValueFrom().getFieldRef().getApiVersion()).isEqualTo("v1"));
    }
  }

  @Test
  void aUsersFieldRefGetsTheDefaultAndKeepsAnExplicitOne() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec()
        .getPools()
        .get(0)
        .setEnv(
            List.of(
                fieldRef("NODE", null, "spec.nodeName"),
                fieldRef("EXPLICIT", "v1", "metadata.namespace"),
                new EnvVarBuilder().withName("PLAIN").withValue("x").build()));
    List<EnvVar> env = new ArrayList<>();
    for (HasMetadata o : fleet(idep).all()) {
      if (o instanceof Deployment d && d.getMetadata().getName().endsWith("-mixed")) {
        env.addAll(d.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv());
      }
    }
    assertThat(env)
        .filteredOn(e -> e.getName().equals("NODE"))
        .singleElement()
        .satisfies(e -> assertThat(e.getValueFrom().getFieldRef().getApiVersion()).isEqualTo("v1"));
    assertThat(env)
        .filteredOn(e -> e.getName().equals("PLAIN"))
        .singleElement()
        .satisfies(e -> assertThat(e.getValueFrom()).isNull());
    // The spec is not changed by rendering.
    assertThat(idep.getSpec().getPools().get(0).getEnv().get(0).getValueFrom().getFieldRef())
        .extracting(r -> r.getApiVersion())
        .isNull();
  }

  private static EnvVar fieldRef(String name, String apiVersion, String path) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef()
        .withApiVersion(apiVersion)
        .withFieldPath(path)
        .endFieldRef()
        .endValueFrom()
        .build();
  }

  private static List<Container> containers(HasMetadata o) {
    PodSpec spec = null;
    if (o instanceof Deployment d) {
      spec = d.getSpec().getTemplate().getSpec();
    } else if (o instanceof StatefulSet s) {
      spec = s.getSpec().getTemplate().getSpec();
    }
    if (spec == null) {
      return List.of();
    }
    List<Container> all = new ArrayList<>(spec.getContainers());
    if (spec.getInitContainers() != null) {
      all.addAll(spec.getInitContainers());
    }
    return all;
  }
}
