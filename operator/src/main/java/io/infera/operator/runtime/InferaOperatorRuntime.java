package io.infera.operator.runtime;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.infera.operator.reconciler.InferaDeploymentReconciler;
import io.infera.operator.reconciler.KubernetesEvents;
import io.infera.operator.status.RouterStatusClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator as it runs: JOSDK {@link Operator} with the InferaDeployment reconciler wired from
 * {@link OperatorSettings}. {@link #start} returns once the caches are synced (without leader
 * election) or once the election has started (with it).
 */
public final class InferaOperatorRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(InferaOperatorRuntime.class);

  private final Operator operator;
  private final OperatorSettings settings;
  private final AtomicBoolean leading = new AtomicBoolean();
  private volatile boolean started;
  private volatile boolean closing;

  private final Runnable onLostLeadership;

  private InferaOperatorRuntime(
      KubernetesClient client,
      OperatorSettings settings,
      MeterRegistry registry,
      boolean ownsClient,
      Runnable onLostLeadership) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.onLostLeadership = Objects.requireNonNull(onLostLeadership, "onLostLeadership");
    String identity =
        settings
            .leaderElection()
            .map(OperatorSettings.LeaderElection::identity)
            .orElseGet(InferaOperatorRuntime::identity);
    RouterStatusClient routers =
        new RouterStatusClient(settings.routerStatusUrl(), settings.routerStatusTimeout());
    this.operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withCloseClientOnStop(ownsClient)
                  .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry))
                  .withConcurrentReconciliationThreads(settings.reconcileThreads())
                  // The one switch: children (create/update/match) and the status patch.
                  .withSSABasedCreateUpdateMatchForDependentResources(settings.serverSideApply())
                  .withUseSSAToPatchPrimaryResource(settings.serverSideApply())
                  // JOSDK leaves ConfigMaps (and Secrets) out of server-side apply by default:
                  // they would be created and replaced under fabric8's field manager, with a
                  // javaoperatorsdk.io/previous annotation, while every other child is applied.
                  // All children go through the same apply under our field manager.
                  .withDefaultNonSSAResource(Set.of());
              settings
                  .leaderElection()
                  .ifPresent(
                      le -> {
                        var b =
                            LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(
                                    le.leaseName())
                                .withIdentity(identity)
                                // JOSDK would System.exit() even on our own shutdown (inside
                                // the shutdown hook, where exit blocks): stoppedLeading exits
                                // only when leadership is lost while running.
                                .withExitOnStopLeading(false)
                                .withLeaderCallbacks(
                                    new LeaderCallbacks(
                                        () -> leading.set(true),
                                        this::stoppedLeading,
                                        leader ->
                                            LOG.info("event=new-leader identity={}", leader)));
                        if (le.leaseNamespace() != null) {
                          b.withLeaseNamespace(le.leaseNamespace());
                        }
                        o.withLeaderElectionConfiguration(b.build());
                      });
            });
    InferaDeploymentReconciler reconciler =
        new InferaDeploymentReconciler(
            routers,
            new KubernetesEvents(client, Clock.systemUTC(), identity),
            Clock.systemUTC(),
            settings.resync());
    operator.register(
        reconciler,
        c -> {
          if (!settings.namespaces().isEmpty()) {
            c.settingNamespaces(settings.namespaces());
          }
        });
  }

  /**
   * Builds and starts the operator.
   *
   * @param ownsClient close {@code client} when the operator stops
   * @throws io.javaoperatorsdk.operator.OperatorException if an informer cannot start (no CRD, no
   *     permission)
   */
  public static InferaOperatorRuntime start(
      KubernetesClient client,
      OperatorSettings settings,
      MeterRegistry registry,
      boolean ownsClient) {
    return start(client, settings, registry, ownsClient, InferaOperatorRuntime::exit);
  }

  /**
   * Builds and starts the operator; {@code onLostLeadership} runs (once, on its own thread) when
   * this replica loses the Lease while running. {@link #start(KubernetesClient, OperatorSettings,
   * MeterRegistry, boolean)} exits the process then; a test that runs replicas in its own JVM
   * passes something else.
   */
  public static InferaOperatorRuntime start(
      KubernetesClient client,
      OperatorSettings settings,
      MeterRegistry registry,
      boolean ownsClient,
      Runnable onLostLeadership) {
    InferaOperatorRuntime rt =
        new InferaOperatorRuntime(client, settings, registry, ownsClient, onLostLeadership);
    rt.operator.start();
    rt.started = true;
    if (settings.leaderElection().isEmpty()) {
      rt.leading.set(true);
    }
    LOG.info(
        "event=started ssa={} namespaces={} resync={} leader-election={}",
        settings.serverSideApply(),
        settings.namespaces().isEmpty() ? "all" : String.join(",", settings.namespaces()),
        settings.resync(),
        settings.leaderElection().map(OperatorSettings.LeaderElection::leaseName).orElse("off"));
    return rt;
  }

  /** Alive: not leading, or leading with every informer healthy. */
  public boolean healthy() {
    return !started || !leading.get() || operator.getRuntimeInfo().allEventSourcesAreHealthy();
  }

  /** Ready: started and healthy (a standby replica is ready: it can take over). */
  public boolean ready() {
    return started && healthy();
  }

  /** Whether this replica reconciles (always, without leader election). */
  public boolean leading() {
    return leading.get();
  }

  public OperatorSettings settings() {
    return settings;
  }

  @Override
  public void close() {
    closing = true;
    started = false;
    operator.stop();
  }

  /**
   * Another replica may reconcile now: stop at once (the Deployment restarts this one as a
   * standby). On our own shutdown there is nothing to do.
   */
  private void stoppedLeading() {
    boolean wasLeading = leading.getAndSet(false);
    if (closing || !wasLeading) {
      return;
    }
    LOG.error("event=lost-leadership action=stop");
    Thread stop = new Thread(onLostLeadership, "lost-leadership");
    stop.setDaemon(true);
    stop.start();
  }

  private static void exit() {
    System.exit(1);
  }

  private static String identity() {
    String pod = System.getenv("POD_NAME");
    if (pod != null && !pod.isBlank()) {
      return pod;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "infera-operator-" + ProcessHandle.current().pid();
    }
  }
}
