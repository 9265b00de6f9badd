package io.infera.operator.reconciler;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.InferaDeploymentStatus;
import io.infera.operator.dependent.DesiredChildren;
import io.infera.operator.dependent.GeneratedSecretDependent;
import io.infera.operator.dependent.NatsDependents;
import io.infera.operator.dependent.NetworkPolicyDependents;
import io.infera.operator.dependent.PoolDependents;
import io.infera.operator.dependent.RouterDependents;
import io.infera.operator.desired.BuildResult;
import io.infera.operator.desired.Defaults;
import io.infera.operator.desired.DesiredFleet;
import io.infera.operator.desired.GeneratedSecret;
import io.infera.operator.desired.Names;
import io.infera.operator.desired.RenderInputs;
import io.infera.operator.status.ChildObserver;
import io.infera.operator.status.Observation;
import io.infera.operator.status.RouterStatusClient;
import io.infera.operator.status.StatusAggregator;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.Mappers;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reconciles one InferaDeployment: validate and build (pure), apply through the workflow only when
 * valid, hand the secondary resources to the status package (which observes them and aggregates the
 * status), and patch the status only when it changed. JOSDK glue only: every decision about what is
 * observed and what the status says lives in {@code status}.
 *
 * <p>An invalid spec (contradicting pool args, anything {@code SpecValidator} refuses) leaves every
 * child as it is: the workflow is not run, the status says {@code Degraded/InvalidSpec} and one
 * Warning event is recorded per refused generation and message. Transient failures (API errors)
 * propagate so that JOSDK retries. Every reconciliation is rescheduled after {@code resync} to
 * refresh the routers' view; when nothing changed it writes nothing.
 */
@Workflow(
    explicitInvocation = true,
    dependents = {
      @Dependent(
          name = InferaDeploymentReconciler.NATS_CONFIGMAP,
          type = NatsDependents.ConfigMapDependent.class,
          reconcilePrecondition = NatsDependents.Deployed.class,
          useEventSourceWithName = DesiredChildren.CONFIGMAPS),
      @Dependent(
          name = InferaDeploymentReconciler.NATS_AUTH_SECRET,
          type = NatsDependents.AuthSecretDependent.class,
          reconcilePrecondition = NatsDependents.Deployed.class),
      @Dependent(
          name = InferaDeploymentReconciler.NATS_STATEFULSET,
          type = NatsDependents.StatefulSetDependent.class,
          // The server reads its configuration and its users' passwords at start.
          dependsOn = {
            InferaDeploymentReconciler.NATS_CONFIGMAP,
            InferaDeploymentReconciler.NATS_AUTH_SECRET
          },
          reconcilePrecondition = NatsDependents.Deployed.class),
      @Dependent(
          name = InferaDeploymentReconciler.NATS_SERVICE,
          type = NatsDependents.ServiceDependent.class,
          reconcilePrecondition = NatsDependents.Deployed.class,
          useEventSourceWithName = DesiredChildren.SERVICES),
      @Dependent(
          name = InferaDeploymentReconciler.GENERATED_SECRET,
          type = GeneratedSecretDependent.class),
      @Dependent(name = "network-policies", type = NetworkPolicyDependents.PoliciesDependent.class),
      @Dependent(
          name = InferaDeploymentReconciler.ROUTER_CONFIGMAP,
          type = RouterDependents.ConfigMapDependent.class,
          useEventSourceWithName = DesiredChildren.CONFIGMAPS),
      @Dependent(
          name = "router-serviceaccount",
          type = RouterDependents.ServiceAccountDependent.class),
      @Dependent(
          name = InferaDeploymentReconciler.ROUTER_ROLE,
          type = RouterDependents.RoleDependent.class),
      @Dependent(
          name = "router-rolebinding",
          type = RouterDependents.RoleBindingDependent.class,
          // The API server checks a binding against the rules of the Role it refers to (the
          // operator holds no bind verb): applied before its Role exists, it is refused.
          dependsOn = InferaDeploymentReconciler.ROUTER_ROLE),
      @Dependent(
          name = "router-deployment",
          type = RouterDependents.DeploymentDependent.class,
          // The new RouterConfig is in place before the pods it rolls start; the admin token too.
          dependsOn = {
            InferaDeploymentReconciler.ROUTER_CONFIGMAP,
            InferaDeploymentReconciler.GENERATED_SECRET
          },
          useEventSourceWithName = DesiredChildren.DEPLOYMENTS),
      @Dependent(
          name = "router-service",
          type = RouterDependents.ServiceDependent.class,
          useEventSourceWithName = DesiredChildren.SERVICES),
      @Dependent(
          name = "pool-deployments",
          type = PoolDependents.DeploymentsDependent.class,
          // Engines read PYTHONHASHSEED from the generated Secret.
          dependsOn = InferaDeploymentReconciler.GENERATED_SECRET,
          useEventSourceWithName = DesiredChildren.DEPLOYMENTS),
      @Dependent(
          name = "pool-services",
          type = PoolDependents.ServicesDependent.class,
          useEventSourceWithName = DesiredChildren.SERVICES),
    })
@ControllerConfiguration(name = InferaDeploymentReconciler.NAME)
public final class InferaDeploymentReconciler implements Reconciler<InferaDeployment> {

  /** Controller name; also the server-side-apply field manager. */
  public static final String NAME = "infera-operator";

  static final String NATS_CONFIGMAP = "nats-configmap";
  static final String NATS_AUTH_SECRET = "nats-auth-secret";
  static final String NATS_STATEFULSET = "nats-statefulset";
  static final String NATS_SERVICE = "nats-service";
  static final String ROUTER_CONFIGMAP = "router-configmap";
  static final String ROUTER_ROLE = "router-role";
  static final String GENERATED_SECRET = "generated-secret";

  private final RouterStatusClient routers;
  private final EventRecorder events;
  private final Clock clock;
  private final Duration resync;

  /**
   * @param routers reads the routers' {@code /v1/admin/status}
   * @param resync how often an unchanged InferaDeployment is looked at again (router view)
   */
  public InferaDeploymentReconciler(
      RouterStatusClient routers, EventRecorder events, Clock clock, Duration resync) {
    this.routers = Objects.requireNonNull(routers, "routers");
    this.events = Objects.requireNonNull(events, "events");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.resync = Objects.requireNonNull(resync, "resync");
  }

  @Override
  public List<EventSource<?, InferaDeployment>> prepareEventSources(
      EventSourceContext<InferaDeployment> context) {
    return List.of(
        shared(context, Deployment.class, DesiredChildren.DEPLOYMENTS),
        shared(context, Service.class, DesiredChildren.SERVICES),
        shared(context, ConfigMap.class, DesiredChildren.CONFIGMAPS));
  }

  private static <R extends HasMetadata> InformerEventSource<R, InferaDeployment> shared(
      EventSourceContext<InferaDeployment> context, Class<R> type, String name) {
    return new InformerEventSource<>(
        InformerEventSourceConfiguration.from(type, InferaDeployment.class)
            .withName(name)
            .withNamespacesInheritedFromController()
            .withLabelSelector(DesiredChildren.MANAGED_SELECTOR)
            .withSecondaryToPrimaryMapper(Mappers.fromOwnerReferences(InferaDeployment.class))
            .build(),
        context);
  }

  @Override
  public UpdateControl<InferaDeployment> reconcile(
      InferaDeployment idep, Context<InferaDeployment> context) {
    BuildResult built = DesiredFleet.build(idep);
    Optional<RenderInputs> desired = Optional.empty();
    Observation.SpecOutcome outcome;
    if (built instanceof BuildResult.Built b) {
      desired = Optional.of(b.fleet().inputs());
      DesiredChildren.put(context, b.fleet());
      context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
      outcome = new Observation.Valid();
    } else {
      BuildResult.Invalid invalid = (BuildResult.Invalid) built;
      outcome = new Observation.Invalid(invalid.reason(), invalid.message());
    }

    String name = idep.getMetadata().getName();
    String ns = idep.getMetadata().getNamespace();
    Long generation = idep.getMetadata().getGeneration();
    Observation observed =
        ChildObserver.observe(
                name,
                desired,
                context.getSecondaryResources(Deployment.class),
                context.getSecondaryResources(StatefulSet.class))
            .observation(
                generation == null ? 0 : generation,
                outcome,
                () ->
                    routers.fetch(name, ns, Defaults.ROUTER_ADMIN_PORT, adminToken(context, name)));
    InferaDeploymentStatus previous = idep.getStatus();
    InferaDeploymentStatus next = StatusAggregator.aggregate(previous, observed, clock.instant());
    if (outcome instanceof Observation.Invalid invalid
        && StatusAggregator.degradedChanged(previous, next)) {
      events.warning(idep, invalid.reason(), invalid.message());
    }
    UpdateControl<InferaDeployment> control = UpdateControl.noUpdate();
    if (previous == null || !StatusAggregator.same(previous, next)) {
      if (context
          .getControllerConfiguration()
          .getConfigurationService()
          .useSSAToPatchPrimaryResource()) {
        control = UpdateControl.patchStatus(statusOnly(idep, next));
      } else {
        replaceStatus(context, idep, next);
      }
    }
    return control.rescheduleAfter(resync);
  }

  /**
   * The routers' admin token from the generated Secret in the informer's cache (no API call), or
   * null before the Secret exists.
   */
  private static String adminToken(Context<InferaDeployment> context, String name) {
    String secret = Names.generatedSecret(name);
    return context
        .getSecondaryResourcesAsStream(Secret.class)
        .filter(s -> secret.equals(s.getMetadata().getName()) && s.getData() != null)
        .map(s -> s.getData().get(GeneratedSecret.ADMIN_TOKEN_KEY))
        .filter(Objects::nonNull)
        .map(v -> new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8))
        .findFirst()
        .orElse(null);
  }

  /**
   * Without server-side apply: one JSON patch that sets the whole status. JOSDK's own non-SSA
   * status patch is a diff against the cached resource, which may not yet hold the previous status
   * write; applied to the newer server state such a diff can drop list entries.
   */
  private static void replaceStatus(
      Context<InferaDeployment> context, InferaDeployment idep, InferaDeploymentStatus status) {
    KubernetesSerialization json = context.getClient().getKubernetesSerialization();
    String patch = "[{\"op\":\"add\",\"path\":\"/status\",\"value\":" + json.asJson(status) + "}]";
    context
        .getClient()
        .resources(InferaDeployment.class)
        .inNamespace(idep.getMetadata().getNamespace())
        .withName(idep.getMetadata().getName())
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON), patch);
  }

  /**
   * The object JOSDK applies (server-side apply, forced, no resourceVersion: the status is
   * recomputed whole every time): identity and status, no spec (the operator never writes it).
   */
  private static InferaDeployment statusOnly(InferaDeployment idep, InferaDeploymentStatus status) {
    InferaDeployment patch = new InferaDeployment();
    patch.setMetadata(
        new ObjectMetaBuilder()
            .withName(idep.getMetadata().getName())
            .withNamespace(idep.getMetadata().getNamespace())
            .build());
    patch.setSpec(null);
    patch.setStatus(status);
    return patch;
  }
}
