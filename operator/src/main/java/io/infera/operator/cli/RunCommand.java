package io.infera.operator.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.infera.operator.runtime.InferaOperatorRuntime;
import io.infera.operator.runtime.OperatorSettings;
import io.infera.operator.runtime.ProbeServer;
import io.infera.operator.status.RouterStatusClient;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code infera-operator run}: the operator itself, in a cluster (or against a kubeconfig). */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the operator: reconciles every InferaDeployment in the watched namespaces into NATS,"
          + " routers and engine pools, and keeps their status current.",
      "Connects with the in-cluster service account, else the current kubeconfig context. Serves"
          + " /healthz, /readyz and /metrics (Prometheus) on --http-port.",
      "Exit codes: 0 stopped by a signal; 1 could not start (API server, CRD, permissions, port);"
          + " 2 invalid option."
    })
public final class RunCommand implements Callable<Integer> {

  /** Exit code of an invalid option. */
  public static final int USAGE = 2;

  /** Exit code of a start failure. */
  public static final int START_FAILED = 1;

  @Spec CommandSpec spec;

  @Option(
      names = {"-n", "--namespace"},
      split = ",",
      paramLabel = "NS",
      defaultValue = "${env:WATCH_NAMESPACE:-}",
      description =
          "Namespace to watch; repeat or separate with commas. Default: all namespaces"
              + " (env WATCH_NAMESPACE).")
  List<String> namespaces = new ArrayList<>();

  @Option(
      names = "--server-side-apply",
      negatable = true,
      defaultValue = "${env:INFERA_SERVER_SIDE_APPLY:-true}",
      fallbackValue = "true",
      description =
          "Write children and status with server-side apply (default). --no-server-side-apply"
              + " creates and replaces instead, for API servers without it such as fabric8's"
              + " mock server (env INFERA_SERVER_SIDE_APPLY=false).")
  boolean serverSideApply;

  @Option(
      names = "--leader-election",
      negatable = true,
      defaultValue = "${env:INFERA_LEADER_ELECTION:-false}",
      fallbackValue = "true",
      description =
          "Reconcile only while holding the Lease --lease-name; needed with more than one"
              + " replica (env INFERA_LEADER_ELECTION). Default: off.")
  boolean leaderElection;

  @Option(
      names = "--lease-name",
      paramLabel = "NAME",
      defaultValue = OperatorSettings.DEFAULT_LEASE_NAME,
      description = "The leader-election Lease. Default: ${DEFAULT-VALUE}.")
  String leaseName;

  @Option(
      names = "--lease-namespace",
      paramLabel = "NS",
      defaultValue = "${env:POD_NAMESPACE:-}",
      description =
          "Namespace of the Lease. Default: the operator's own namespace (env POD_NAMESPACE, else"
              + " the client's namespace).")
  String leaseNamespace;

  @Option(
      names = "--http-host",
      paramLabel = "HOST",
      defaultValue = "0.0.0.0",
      description = "Address of the probe and metrics server. Default: ${DEFAULT-VALUE}.")
  String httpHost;

  @Option(
      names = "--http-port",
      paramLabel = "PORT",
      defaultValue = "${env:INFERA_HTTP_PORT:-8080}",
      description =
          "Port of /healthz, /readyz and /metrics; 0 picks a free one (env INFERA_HTTP_PORT)."
              + " Default: 8080.")
  int httpPort;

  @Option(
      names = "--resync",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description =
          "Look at every InferaDeployment again after this, to refresh the routers' view in its"
              + " status (writes nothing when nothing changed). Default: ${DEFAULT-VALUE}.")
  Duration resync;

  @Option(
      names = "--router-status-url",
      paramLabel = "TEMPLATE",
      defaultValue = RouterStatusClient.DEFAULT_URL_TEMPLATE,
      description =
          "Where the routers' /v1/admin/status is read; {name}, {namespace} and {port} are"
              + " replaced. Default: ${DEFAULT-VALUE} (the router Service).")
  String routerStatusUrl;

  @Option(
      names = "--router-status-timeout",
      paramLabel = "DURATION",
      defaultValue = "2s",
      converter = DurationConverter.class,
      description =
          "Give up on a router status request after this; the router view is then unknown."
              + " Default: ${DEFAULT-VALUE}.")
  Duration routerStatusTimeout;

  @Option(
      names = "--reconcile-threads",
      paramLabel = "N",
      defaultValue = "10",
      description = "Concurrent reconciliations. Default: ${DEFAULT-VALUE}.")
  int reconcileThreads;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    OperatorSettings settings;
    try {
      settings = settings();
    } catch (IllegalArgumentException e) {
      err.println("infera-operator run: " + e.getMessage());
      return USAGE;
    }
    if (httpPort < 0 || httpPort > 65535) {
      err.println("infera-operator run: --http-port must be in 0..65535, got " + httpPort);
      return USAGE;
    }
    Running running;
    try {
      running = start(settings, new KubernetesClientBuilder().build());
    } catch (StartFailure e) {
      err.println("infera-operator run: " + e.getMessage());
      return START_FAILED;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  running.close();
                  stopped.countDown();
                },
                "shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** The settings the options describe. */
  OperatorSettings settings() {
    Set<String> ns = new LinkedHashSet<>();
    for (String n : namespaces) {
      if (!n.isBlank()) {
        ns.add(n.strip());
      }
    }
    return new OperatorSettings(
        serverSideApply,
        ns,
        resync,
        routerStatusUrl,
        routerStatusTimeout,
        leaderElection
            ? Optional.of(
                new OperatorSettings.LeaderElection(
                    leaseName,
                    leaseNamespace == null || leaseNamespace.isBlank() ? null : leaseNamespace))
            : Optional.empty(),
        reconcileThreads);
  }

  /** A start failure, with a message for the user (no stack trace). */
  static final class StartFailure extends Exception {
    StartFailure(String message) {
      super(message);
    }
  }

  /** The probe server and the operator, stopped together. */
  record Running(ProbeServer probes, InferaOperatorRuntime operator) implements AutoCloseable {
    @Override
    public void close() {
      operator.close();
      probes.close();
    }
  }

  /** Starts the probe server, then the operator on {@code client} (which it then owns). */
  Running start(OperatorSettings settings, KubernetesClient client) throws StartFailure {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    InferaOperatorRuntime[] operator = new InferaOperatorRuntime[1];
    ProbeServer probes;
    try {
      probes =
          ProbeServer.start(
              httpHost,
              httpPort,
              () -> operator[0] == null || operator[0].healthy(),
              () -> operator[0] != null && operator[0].ready(),
              registry);
    } catch (IOException e) {
      client.close();
      throw new StartFailure(
          "cannot listen on " + httpHost + ":" + httpPort + ": " + e.getMessage());
    }
    try {
      operator[0] = InferaOperatorRuntime.start(client, settings, registry, true);
    } catch (IllegalArgumentException e) {
      probes.close();
      client.close();
      throw new StartFailure(e.getMessage());
    } catch (RuntimeException e) {
      probes.close();
      client.close();
      throw new StartFailure(explain(e, client));
    }
    return new Running(probes, operator[0]);
  }

  /** One line on why the operator could not start, with the likely fix. */
  static String explain(RuntimeException e, KubernetesClient client) {
    KubernetesClientException k = cause(e, KubernetesClientException.class);
    String server = client.getConfiguration().getMasterUrl();
    if (k != null) {
      int code = k.getCode();
      if (code == 404) {
        return "the API server at "
            + server
            + " does not serve inferadeployments.infera.io: install the CRD first (kubectl apply"
            + " -f crds/)";
      }
      if (code == 401 || code == 403) {
        return "not allowed to watch the operator's resources at "
            + server
            + " (HTTP "
            + code
            + "): apply the RBAC in config/rbac/ ("
            + firstLine(k.getMessage())
            + ")";
      }
      return "cannot reach the API server at " + server + ": " + firstLine(k.getMessage());
    }
    String m = e.getMessage();
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    return "cannot start against "
        + server
        + ": "
        + firstLine(m == null ? root.toString() : m)
        + (root != e && root.getMessage() != null ? " (" + firstLine(root.getMessage()) + ")" : "");
  }

  private static <T extends Throwable> T cause(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
