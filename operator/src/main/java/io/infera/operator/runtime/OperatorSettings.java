package io.infera.operator.runtime;

import io.infera.operator.status.RouterStatusClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * How the operator runs. Validated on construction with messages naming the option.
 *
 * @param serverSideApply write children and status with server-side apply (production); off only
 *     for API servers without it (fabric8's mock server): then children are created and replaced
 *     and the status is patched with a JSON patch
 * @param namespaces namespaces to watch; empty watches all
 * @param resync an unchanged InferaDeployment is reconciled again after this (refreshes the
 *     routers' view)
 * @param routerStatusUrl template of the routers' status URL ({@link RouterStatusClient})
 * @param routerStatusTimeout bound of one router status request
 * @param leaderElection empty: no leader election (one replica)
 * @param reconcileThreads concurrent reconciliations
 */
public record OperatorSettings(
    boolean serverSideApply,
    Set<String> namespaces,
    Duration resync,
    String routerStatusUrl,
    Duration routerStatusTimeout,
    Optional<LeaderElection> leaderElection,
    int reconcileThreads) {

  /** The Lease a replica must hold to reconcile. */
  public static final String DEFAULT_LEASE_NAME = "infera-operator-lock";

  /**
   * @param leaseName the Lease object
   * @param leaseNamespace its namespace; null: the operator pod's own namespace
   * @param identity the holder identity this replica writes into the Lease; null: the pod's name
   *     ({@code POD_NAME}), else the host name. Replicas must differ (two operators in one JVM or
   *     on one host need it set)
   */
  public record LeaderElection(String leaseName, String leaseNamespace, String identity) {
    public LeaderElection {
      if (leaseName == null || leaseName.isBlank()) {
        throw new IllegalArgumentException("lease name must not be empty");
      }
      if (identity != null && identity.isBlank()) {
        throw new IllegalArgumentException("leader election identity must not be blank");
      }
    }

    /** With the default identity (the pod's name). */
    public LeaderElection(String leaseName, String leaseNamespace) {
      this(leaseName, leaseNamespace, null);
    }
  }

  public OperatorSettings {
    namespaces = Set.copyOf(new TreeSet<>(Objects.requireNonNull(namespaces, "namespaces")));
    Objects.requireNonNull(leaderElection, "leaderElection");
    positive("resync", resync);
    positive("router status timeout", routerStatusTimeout);
    RouterStatusClient.checkTemplate(Objects.requireNonNull(routerStatusUrl, "routerStatusUrl"));
    if (reconcileThreads < 1) {
      throw new IllegalArgumentException(
          "reconcile threads must be at least 1, got " + reconcileThreads);
    }
    for (String ns : namespaces) {
      if (ns.isBlank()) {
        throw new IllegalArgumentException("namespace must not be empty");
      }
    }
  }

  /** Production defaults: SSA, all namespaces, 30 s resync, in-cluster router URL, no election. */
  public static OperatorSettings defaults() {
    return new OperatorSettings(
        true,
        Set.of(),
        Duration.ofSeconds(30),
        RouterStatusClient.DEFAULT_URL_TEMPLATE,
        Duration.ofSeconds(2),
        Optional.empty(),
        10);
  }

  public OperatorSettings withServerSideApply(boolean on) {
    return new OperatorSettings(
        on,
        namespaces,
        resync,
        routerStatusUrl,
        routerStatusTimeout,
        leaderElection,
        reconcileThreads);
  }

  public OperatorSettings withResync(Duration d) {
    return new OperatorSettings(
        serverSideApply,
        namespaces,
        d,
        routerStatusUrl,
        routerStatusTimeout,
        leaderElection,
        reconcileThreads);
  }

  public OperatorSettings withRouterStatus(String urlTemplate, Duration timeout) {
    return new OperatorSettings(
        serverSideApply,
        namespaces,
        resync,
        urlTemplate,
        timeout,
        leaderElection,
        reconcileThreads);
  }

  public OperatorSettings withNamespaces(Set<String> ns) {
    return new OperatorSettings(
        serverSideApply,
        ns,
        resync,
        routerStatusUrl,
        routerStatusTimeout,
        leaderElection,
        reconcileThreads);
  }

  public OperatorSettings withLeaderElection(Optional<LeaderElection> le) {
    return new OperatorSettings(
        serverSideApply,
        namespaces,
        resync,
        routerStatusUrl,
        routerStatusTimeout,
        le,
        reconcileThreads);
  }

  public OperatorSettings withReconcileThreads(int n) {
    return new OperatorSettings(
        serverSideApply,
        namespaces,
        resync,
        routerStatusUrl,
        routerStatusTimeout,
        leaderElection,
        n);
  }

  private static void positive(String what, Duration d) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, got " + d);
    }
  }
}
