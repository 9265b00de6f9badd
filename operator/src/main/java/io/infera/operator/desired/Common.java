package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.CapabilitiesBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Lifecycle;
import io.fabric8.kubernetes.api.model.LifecycleBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import java.util.Map;

/** Metadata, probes and security contexts shared by the builders. */
final class Common {

  private Common() {}

  /** Name, namespace, labels and the controller owner reference of a child. */
  static ObjectMeta meta(RenderInputs in, String name, Map<String, String> labels) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(in.namespace())
        .withLabels(labels)
        .withOwnerReferences(in.ownerReference())
        .build();
  }

  /** Restricted Pod Security Standard: non-root, read-only root, no privilege, no capability. */
  static SecurityContext restrictedContainer() {
    return new SecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withReadOnlyRootFilesystem(true)
        .withAllowPrivilegeEscalation(false)
        .withCapabilities(dropAll())
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .build();
  }

  /** Pod-level context of pods that run only Infera's (or NATS') non-root images. */
  static PodSecurityContext nonRootPod() {
    return new PodSecurityContextBuilder()
        .withRunAsNonRoot(true)
        .withRunAsUser(Defaults.NON_ROOT_UID)
        .withRunAsGroup(Defaults.NON_ROOT_UID)
        .withFsGroup(Defaults.NON_ROOT_UID)
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .build();
  }

  static Capabilities dropAll() {
    return new CapabilitiesBuilder().withDrop("ALL").build();
  }

  static Probe httpProbe(
      String path, String port, int periodSeconds, int failureThreshold, int timeoutSeconds) {
    return new ProbeBuilder()
        .withNewHttpGet()
        .withPath(path)
        .withPort(new IntOrString(port))
        .endHttpGet()
        .withPeriodSeconds(periodSeconds)
        .withFailureThreshold(failureThreshold)
        .withTimeoutSeconds(timeoutSeconds)
        .build();
  }

  /** A pre-stop pause (kubelet's sleep action: no shell needed in the image). */
  static Lifecycle preStopSleep(int seconds) {
    return new LifecycleBuilder()
        .withNewPreStop()
        .withNewSleep()
        .withSeconds((long) seconds)
        .endSleep()
        .endPreStop()
        .build();
  }

  static EnvVar env(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }

  static EnvVar podNameEnv() {
    return new EnvVarBuilder()
        .withName("POD_NAME")
        .withNewValueFrom()
        .withNewFieldRef()
        .withApiVersion(FIELD_REF_API_VERSION)
        .withFieldPath("metadata.name")
        .endFieldRef()
        .endValueFrom()
        .build();
  }

  /**
   * What the API server writes into a {@code fieldRef} without an {@code apiVersion}. The field
   * selector is atomic for server-side apply: applied without it, the stored object always differs
   * from the desired one and every reconcile would apply the workload again.
   */
  static final String FIELD_REF_API_VERSION = "v1";

  /** {@code e} as the API server stores it: a {@code fieldRef} gets its default apiVersion. */
  static EnvVar serverDefaults(EnvVar e) {
    EnvVar copy = new EnvVarBuilder(e).build();
    if (copy.getValueFrom() != null
        && copy.getValueFrom().getFieldRef() != null
        && copy.getValueFrom().getFieldRef().getApiVersion() == null) {
      copy.getValueFrom().getFieldRef().setApiVersion(FIELD_REF_API_VERSION);
    }
    return copy;
  }
}
