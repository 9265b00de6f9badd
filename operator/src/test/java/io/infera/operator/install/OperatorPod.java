package io.infera.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.infera.operator.cli.RunCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;

/** Checks shared by the chart's and kustomize's operator Deployment. */
final class OperatorPod {

  static final KubernetesSerialization JSON = new KubernetesSerialization();

  private OperatorPod() {}

  /** Every object as fabric8 parses it (typed where fabric8 knows the kind). */
  static List<HasMetadata> parse(List<Map<String, Object>> objects) {
    List<HasMetadata> out = new ArrayList<>();
    for (Map<String, Object> o : objects) {
      HasMetadata h = JSON.unmarshal(JSON.asJson(o), HasMetadata.class);
      assertThat(h.getMetadata().getName()).as("name of %s", o.get("kind")).isNotBlank();
      out.add(h);
    }
    return out;
  }

  static Deployment deployment(Map<String, Object> object) {
    return JSON.unmarshal(JSON.asJson(object), Deployment.class);
  }

  static Container container(Deployment d) {
    List<Container> cs = d.getSpec().getTemplate().getSpec().getContainers();
    assertThat(cs).hasSize(1);
    return cs.get(0);
  }

  /** Restricted pod security, probes, the writable /tmp, and args RunCommand accepts. */
  static void checkRestricted(Deployment d) {
    PodSpec pod = d.getSpec().getTemplate().getSpec();
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    Container c = container(d);
    var sc = c.getSecurityContext();
    assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
    assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
    assertThat(sc.getRunAsNonRoot()).isTrue();
    assertThat(sc.getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(sc.getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(c.getVolumeMounts()).anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"));
    assertThat(pod.getVolumes())
        .anySatisfy(
            v -> {
              assertThat(v.getName()).isEqualTo("tmp");
              assertThat(v.getEmptyDir()).isNotNull();
            });

    assertThat(c.getPorts()).hasSize(1);
    int port = c.getPorts().get(0).getContainerPort();
    String portName = c.getPorts().get(0).getName();
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(c.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo(portName);
    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo(portName);
    assertThat(c.getArgs()).first().isEqualTo("run");
    assertThat(c.getArgs()).contains("--http-port=" + port);
    runOptions(c.getArgs());
    assertThat(env(c, "POD_NAMESPACE")).isPresent();
    assertThat(pod.getServiceAccountName()).isNotBlank();
  }

  /** The options after {@code run}, parsed by the real command (fails on an unknown option). */
  static RunCommand runOptions(List<String> args) {
    RunCommand run = new RunCommand();
    try {
      new CommandLine(run).parseArgs(args.subList(1, args.size()).toArray(String[]::new));
    } catch (CommandLine.ParameterException e) {
      throw new AssertionError("infera-operator run refuses " + args + ": " + e.getMessage(), e);
    }
    return run;
  }

  static Optional<String> env(Container c, String name) {
    return c.getEnv().stream()
        .filter(e -> e.getName().equals(name))
        .map(e -> e.getValue() != null ? e.getValue() : fieldRef(e))
        .findFirst();
  }

  private static String fieldRef(EnvVar e) {
    return e.getValueFrom() != null && e.getValueFrom().getFieldRef() != null
        ? "fieldRef:" + e.getValueFrom().getFieldRef().getFieldPath()
        : "";
  }

  static boolean leaderElection(Deployment d) {
    return container(d).getArgs().contains("--leader-election");
  }
}
