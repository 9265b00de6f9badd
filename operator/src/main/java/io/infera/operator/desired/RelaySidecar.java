package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import java.util.ArrayList;
import java.util.List;

/**
 * The relay sidecar of every worker pod ({@code infera-router relay}; docs/contracts.md, "NATS
 * event plane"): reads the engine's KV events from ZMQ on localhost (its SUB socket binds the
 * loopback port the engine's PUB connects to; ATOM's PUB binds it, so that relay connects) and
 * republishes them to NATS JetStream under its pool and the pod's name, with its pool's credentials
 * ({@link NatsCredentials}).
 */
public final class RelaySidecar {

  /** The relay's port name: {@code /health} (liveness) and {@code /metrics}. */
  public static final String HTTP_PORT_NAME = "relay-http";

  /** The volume the relay's JVM writes temporary files to (read-only root filesystem). */
  static final String TMP_VOLUME = "relay-tmp";

  private RelaySidecar() {}

  /**
   * The relay's command-line arguments for a worker of {@code pool} (the router image's entrypoint
   * is infera-router). {@code --dp-size} (the pool's {@code dataParallelSize}, omitted at the
   * relay's default 1) makes it read rank r on both base ports + r, as the engine binds them.
   */
  public static List<String> args(RenderInputs in, PoolSettings pool) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "relay",
                "--zmq",
                "tcp://" + EngineCommand.KV_EVENTS_HOST + ":" + Defaults.ZMQ_PORT));
    if (in.engine() == Engine.ATOM) {
      // ATOM's PUB always binds its endpoint, and it has no replay socket: gaps stay gaps.
      args.addAll(List.of("--zmq-mode", "connect"));
    } else {
      // The engine's PUB connects to a loopback endpoint: the relay binds it.
      args.addAll(
          List.of(
              "--zmq-mode",
              "bind",
              "--replay",
              "tcp://" + EngineCommand.KV_EVENTS_HOST + ":" + Defaults.REPLAY_PORT));
    }
    args.addAll(
        List.of(
            "--nats",
            in.natsUrl(),
            "--worker-id",
            "$(POD_NAME)",
            "--pool",
            pool.name(),
            "--engine",
            in.engine().eventFormat(),
            "--block-size",
            Integer.toString(in.pageSize()),
            "--subject-prefix",
            in.nats().subjectPrefix(),
            "--stream",
            in.nats().stream(),
            "--snapshot-bucket",
            in.nats().snapshotBucket(),
            "--http-port",
            Integer.toString(Defaults.RELAY_HTTP_PORT)));
    if (pool.dataParallelSize() > 1) {
      args.add("--dp-size");
      args.add(Integer.toString(pool.dataParallelSize()));
    }
    NatsCredentials.Client c = NatsCredentials.relay(in, pool.name());
    flag(args, "--nats-user", c.user());
    flag(args, "--nats-password-file", c.passwordFile());
    flag(args, "--nats-creds", c.credsFile());
    flag(args, "--nats-tls-ca", c.caFile());
    flag(args, "--nats-tls-cert", c.certFile());
    flag(args, "--nats-tls-key", c.keyFile());
    return List.copyOf(args);
  }

  private static void flag(List<String> args, String flag, String value) {
    if (value != null) {
      args.add(flag);
      args.add(value);
    }
  }

  /** The relay container of a worker pod of {@code pool}. */
  public static Container container(RenderInputs in, PoolSettings pool) {
    return new ContainerBuilder()
        .withName(Names.RELAY_CONTAINER)
        .withImage(in.router().image())
        .withArgs(args(in, pool))
        .withEnv(Common.podNameEnv(), Common.env("JAVA_TOOL_OPTIONS", Defaults.JAVA_TOOL_OPTIONS))
        .addNewPort()
        .withName(HTTP_PORT_NAME)
        .withContainerPort(Defaults.RELAY_HTTP_PORT)
        .withProtocol("TCP")
        .endPort()
        // Liveness only: a relay waiting for NATS must not take its engine out of the Service.
        .withLivenessProbe(Common.httpProbe("/health", HTTP_PORT_NAME, 10, 3, 2))
        // Stays up as long as the engine's own pre-stop pause: events flow until the engine stops.
        .withLifecycle(Common.preStopSleep(Defaults.PRE_STOP_SLEEP_SECONDS))
        .withNewResources()
        .addToRequests("cpu", new Quantity(Defaults.RELAY_CPU))
        .addToRequests("memory", new Quantity(Defaults.RELAY_MEMORY))
        .addToLimits("memory", new Quantity(Defaults.RELAY_MEMORY))
        .endResources()
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withRunAsUser(Defaults.NON_ROOT_UID)
        .withRunAsGroup(Defaults.NON_ROOT_UID)
        .withReadOnlyRootFilesystem(true)
        .withAllowPrivilegeEscalation(false)
        .withCapabilities(Common.dropAll())
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .addNewVolumeMount()
        .withName(TMP_VOLUME)
        .withMountPath("/tmp")
        .endVolumeMount()
        .addAllToVolumeMounts(NatsCredentials.relay(in, pool.name()).mounts())
        .build();
  }
}
