package io.infera.operator.cluster;

import io.infera.operator.install.InstallTools;
import io.infera.operator.install.SampleBreaches;
import io.infera.operator.testing.KubeControlPlane;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * kubectl 1.35 against the shared control plane, and the InferaDeployment CRD installed once per
 * JVM from {@code crds/} (what a user does first), with the output of that install kept for {@link
 * CrdInstallIT}.
 */
final class Kubectl {

  private static final Object LOCK = new Object();
  private static InstallTools.Run crdInstall;

  private Kubectl() {}

  /** {@code kubectl --kubeconfig <admin> args...}, at most 60 s. */
  static InstallTools.Run run(KubeControlPlane cluster, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(InstallTools.kubectl().toString());
    cmd.add("--kubeconfig=" + cluster.kubeconfig());
    cmd.add(cluster.kubectlCacheDir());
    cmd.addAll(List.of(args));
    return InstallTools.run(cmd);
  }

  /** Like {@link #run} and fails the test on a non-zero exit. */
  static InstallTools.Run ok(KubeControlPlane cluster, String... args) {
    InstallTools.Run r = run(cluster, args);
    if (r.exitCode() != 0) {
      throw new AssertionError("kubectl " + String.join(" ", args) + " failed: " + r.describe());
    }
    return r;
  }

  /**
   * Applies {@code crds/} once per JVM and waits until the CRD is Established; returns the output
   * of that first {@code kubectl apply}.
   */
  static InstallTools.Run installCrd(KubeControlPlane cluster) {
    synchronized (LOCK) {
      if (crdInstall == null) {
        InstallTools.Run r = run(cluster, "apply", "-f", SampleBreaches.crdFile().toString());
        if (r.exitCode() != 0) {
          throw new AssertionError("kubectl apply of the CRD failed: " + r.describe());
        }
        ok(
            cluster,
            "wait",
            "--for=condition=Established",
            "--timeout=30s",
            "crd/inferadeployments.infera.io");
        crdInstall = r;
      }
      return crdInstall;
    }
  }

  /** {@code resource} with {@code metadata.namespace} set to {@code namespace}, as YAML. */
  static String inNamespace(Map<String, Object> resource, String namespace) {
    SampleBreaches.metadata(resource).put("namespace", namespace);
    return SampleBreaches.yaml(resource);
  }

  /** Writes {@code text} into a temporary file (deleted when the JVM exits). */
  static Path file(String prefix, String text) {
    try {
      Path f = Files.createTempFile(prefix, ".yaml");
      f.toFile().deleteOnExit();
      Files.writeString(f, text, StandardCharsets.UTF_8);
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The lines of kubectl's stderr that are server warnings. */
  static List<String> warnings(InstallTools.Run r) {
    return r.stderr().lines().filter(l -> l.startsWith("Warning:")).toList();
  }
}
