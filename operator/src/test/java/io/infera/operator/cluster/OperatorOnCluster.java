package io.infera.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.infera.operator.install.InstallTools;
import io.infera.operator.runtime.InferaOperatorRuntime;
import io.infera.operator.runtime.OperatorSettings;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.KubeControlPlane;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * The operator as it is installed, on the shared {@link KubeControlPlane}: the CRD from {@code
 * crds/}, the {@code infera-system} namespace and {@code config/rbac} applied with kubectl, and the
 * operator in-process as its service account (impersonated, so the server's RBAC decides), with
 * server-side apply as in production. Also catches every WARN/ERROR the operator logs, to find a
 * refusal the audit log does not hold (reads are not audited).
 */
final class OperatorOnCluster {

  static final String SYSTEM_NAMESPACE = "infera-system";
  static final String SERVICE_ACCOUNT = "infera-operator";
  static final String OPERATOR_USER =
      "system:serviceaccount:" + SYSTEM_NAMESPACE + ":" + SERVICE_ACCOUNT;

  private static final Object LOCK = new Object();
  private static boolean installed;
  private static final List<String> PROBLEMS = new CopyOnWriteArrayList<>();
  private static final List<String> DIFFS = new CopyOnWriteArrayList<>();
  private static final String MATCHER =
      "io.javaoperatorsdk.operator.processing.dependent.kubernetes"
          + ".SSABasedGenericKubernetesResourceMatcher";

  static {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    AppenderBase<ILoggingEvent> catcher =
        new AppenderBase<>() {
          @Override
          protected void append(ILoggingEvent e) {
            if (e.getLoggerName().equals(MATCHER)) {
              DIFFS.add(e.getFormattedMessage());
            }
            if (e.getLevel().isGreaterOrEqual(Level.WARN)) {
              StringBuilder sb =
                  new StringBuilder(e.getLoggerName()).append(": ").append(e.getFormattedMessage());
              for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
                sb.append(" | ").append(t.getClassName()).append(": ").append(t.getMessage());
              }
              PROBLEMS.add(sb.toString());
            }
          }
        };
    catcher.setName("operator-on-cluster");
    catcher.start();
    root.addAppender(catcher);
    // The matcher says at DEBUG why it finds a child changed: the reason for any write in a
    // steady state (kept out of the console, collected for the failure message).
    Logger matcher = (Logger) LoggerFactory.getLogger(MATCHER);
    matcher.setLevel(Level.DEBUG);
    matcher.setAdditive(false);
    matcher.addAppender(catcher);
  }

  private OperatorOnCluster() {}

  /** The CRD and config/rbac, once per JVM (kubectl apply: idempotent with other ITs). */
  static void install(KubeControlPlane cp) {
    synchronized (LOCK) {
      if (installed) {
        return;
      }
      try (KubernetesClient admin = cp.admin()) {
        kubectl(cp, "apply", "-f", "crds/inferadeployments.infera.io-v1.yml");
        awaitEstablished(admin);
        if (admin.namespaces().withName(SYSTEM_NAMESPACE).get() == null) {
          admin
              .namespaces()
              .resource(
                  new NamespaceBuilder()
                      .withNewMetadata()
                      .withName(SYSTEM_NAMESPACE)
                      .endMetadata()
                      .build())
              .create();
        }
      }
      kubectl(cp, "apply", "-k", "config/rbac");
      installed = true;
    }
  }

  /**
   * Starts the operator as its service account, watching {@code namespaces}, with server-side
   * apply; router status requests go to {@code routerStatusUrl} (a fake on loopback: there are no
   * router pods).
   */
  static InferaOperatorRuntime start(
      KubeControlPlane cp,
      Set<String> namespaces,
      Duration resync,
      String routerStatusUrl,
      Optional<OperatorSettings.LeaderElection> election,
      MeterRegistry registry) {
    return start(
        cp,
        namespaces,
        resync,
        routerStatusUrl,
        election,
        registry,
        () -> PROBLEMS.add("lost the Lease while running"));
  }

  /** {@link #start} with what to do instead of exiting when the Lease is lost while running. */
  static InferaOperatorRuntime start(
      KubeControlPlane cp,
      Set<String> namespaces,
      Duration resync,
      String routerStatusUrl,
      Optional<OperatorSettings.LeaderElection> election,
      MeterRegistry registry,
      Runnable onLostLeadership) {
    OperatorSettings settings =
        OperatorSettings.defaults()
            .withNamespaces(namespaces)
            .withResync(resync)
            .withRouterStatus(routerStatusUrl, Duration.ofSeconds(1))
            .withLeaderElection(election)
            .withReconcileThreads(4);
    assertThat(settings.serverSideApply()).as("production default").isTrue();
    KubernetesClient client = cp.asServiceAccount(SYSTEM_NAMESPACE, SERVICE_ACCOUNT);
    return InferaOperatorRuntime.start(client, settings, registry, true, onLostLeadership);
  }

  /** Closes what a test class started (nulls skipped, in order) and prints how long it took. */
  static void stop(String test, Instant started, AutoCloseable... resources) {
    for (AutoCloseable c : resources) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (Exception e) {
        PROBLEMS.add(test + ": closing " + c + ": " + e);
      }
    }
    System.err.println(
        test + " took " + Duration.between(started, Instant.now()).toMillis() + " ms");
  }

  /** Reconciliations JOSDK started so far (its Micrometer counters, summed). */
  static double reconciliations(MeterRegistry registry) {
    return registry.getMeters().stream()
        .filter(
            m -> m instanceof Counter && m.getId().getName().endsWith("reconciliations.started"))
        .mapToDouble(m -> ((Counter) m).count())
        .sum();
  }

  /** What the operator's service account was refused (403) since the control plane started. */
  static List<KubeControlPlane.Write> forbiddenWrites(KubeControlPlane cp) {
    return cp.writes(w -> w.user().equals(OPERATOR_USER) && w.code() == 403);
  }

  /** Every WARN/ERROR line logged in this JVM that mentions a refusal by RBAC. */
  static List<String> forbiddenInLogs() {
    List<String> out = new ArrayList<>();
    for (String p : PROBLEMS) {
      if (p.contains("403") || p.toLowerCase(java.util.Locale.ROOT).contains("forbidden")) {
        out.add(p);
      }
    }
    return out;
  }

  /** What the server-side-apply matcher found different, since the last call. */
  static List<String> drainDiffs() {
    List<String> out = List.copyOf(DIFFS);
    DIFFS.removeAll(out);
    return out;
  }

  /** Every WARN/ERROR line logged in this JVM so far. */
  static List<String> problems() {
    return List.copyOf(PROBLEMS);
  }

  /** Runs kubectl as the admin in the repository root; fails the test on a non-zero exit. */
  static String kubectl(KubeControlPlane cp, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(InstallTools.kubectl().toString());
    cmd.add("--kubeconfig=" + cp.kubeconfig());
    cmd.add(cp.kubectlCacheDir());
    cmd.addAll(List.of(args));
    return InstallTools.ok(cmd);
  }

  /** kubectl as the admin with {@code stdin} fed to it (for {@code -f -}). */
  static String kubectlStdin(KubeControlPlane cp, String stdin, String... args) {
    Path in;
    try {
      in = Files.createTempFile("infera-kubectl", ".yaml");
      Files.writeString(in, stdin, StandardCharsets.UTF_8);
      List<String> cmd = new ArrayList<>();
      cmd.add(InstallTools.kubectl().toString());
      cmd.add("--kubeconfig=" + cp.kubeconfig());
      cmd.add(cp.kubectlCacheDir());
      cmd.addAll(List.of(args));
      Process p =
          new ProcessBuilder(cmd)
              .directory(Fixtures.repoRoot().toFile())
              .redirectInput(in.toFile())
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new AssertionError(String.join(" ", cmd) + " failed:\n" + out);
      }
      Files.deleteIfExists(in);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** The sample {@code config/samples/<file>} with its namespace replaced by {@code ns}. */
  static String sampleIn(String file, String ns) {
    String yaml = Fixtures.read(Fixtures.repoRoot().resolve("config/samples/" + file));
    String moved = yaml.replaceFirst("(?m)^  namespace: [a-z0-9-]+$", "  namespace: " + ns);
    assertThat(moved).as(file + " names its namespace").isNotEqualTo(yaml);
    return moved;
  }

  /** The sample files, sorted. */
  static List<String> samples() {
    try (Stream<Path> s = Files.list(Fixtures.repoRoot().resolve("config/samples"))) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yaml"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void awaitEstablished(KubernetesClient admin) {
    Instant deadline = Instant.now().plusSeconds(30);
    while (true) {
      CustomResourceDefinition crd =
          admin
              .apiextensions()
              .v1()
              .customResourceDefinitions()
              .withName("inferadeployments.infera.io")
              .get();
      boolean established =
          crd != null
              && crd.getStatus() != null
              && crd.getStatus().getConditions() != null
              && crd.getStatus().getConditions().stream()
                  .anyMatch(c -> c.getType().equals("Established") && c.getStatus().equals("True"));
      if (established) {
        return;
      }
      assertThat(Instant.now()).as("CRD established").isBefore(deadline);
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
