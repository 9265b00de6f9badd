package io.infera.operator.desired;

import static io.infera.operator.testing.Fixtures.fleet;
import static io.infera.operator.testing.Fixtures.idep;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.PoolSpec;
import io.infera.operator.render.Renderer;
import io.infera.operator.testing.Fixtures;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DesiredFleetTest {

  private static final List<InferaDeployment> VARIANTS =
      List.of(
          idep(Engine.VLLM, PoolRole.MIXED),
          idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE),
          idep(Engine.SIM, PoolRole.MIXED));

  @Test
  void everyChildCarriesTheContractLabelsNamespaceAndControllerOwnerReference() {
    for (InferaDeployment idep : VARIANTS) {
      for (HasMetadata o : fleet(idep).all()) {
        String what = o.getKind() + " " + o.getMetadata().getName();
        assertThat(o.getMetadata().getNamespace()).as(what).isEqualTo("ns");
        assertThat(o.getMetadata().getLabels())
            .as(what)
            .containsEntry("app.kubernetes.io/managed-by", "infera-operator")
            .containsEntry("app.kubernetes.io/part-of", "infera")
            .containsEntry("infera.io/deployment", "demo");
        assertThat(o.getMetadata().getOwnerReferences()).as(what).hasSize(1);
        OwnerReference ref = o.getMetadata().getOwnerReferences().get(0);
        assertThat(ref.getApiVersion()).isEqualTo("infera.io/v1alpha1");
        assertThat(ref.getKind()).isEqualTo("InferaDeployment");
        assertThat(ref.getName()).isEqualTo("demo");
        assertThat(ref.getUid()).isEqualTo(Fixtures.UID);
        assertThat(ref.getController()).isTrue();
        assertThat(ref.getBlockOwnerDeletion()).isTrue();
      }
    }
  }

  @Test
  void namesAndComponentLabelsFollowTheContract() {
    Fleet f = fleet(idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE));
    List<String> ids =
        f.all().stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
    assertThat(ids)
        .containsExactly(
            "ServiceAccount/demo-router",
            "ConfigMap/demo-nats",
            "ConfigMap/demo-router",
            "Role/demo-router",
            "RoleBinding/demo-router",
            "Service/demo-decode",
            "Service/demo-nats",
            "Service/demo-prefill",
            "Service/demo-router",
            "NetworkPolicy/demo-decode",
            "NetworkPolicy/demo-nats",
            "NetworkPolicy/demo-prefill",
            "NetworkPolicy/demo-router",
            "Deployment/demo-decode",
            "Deployment/demo-prefill",
            "Deployment/demo-router",
            "StatefulSet/demo-nats");
    for (HasMetadata o : f.all()) {
      Map<String, String> labels = o.getMetadata().getLabels();
      String name = o.getMetadata().getName();
      switch (name) {
        case "demo-router" ->
            assertThat(labels).containsEntry("app.kubernetes.io/component", "router");
        case "demo-nats" -> assertThat(labels).containsEntry("app.kubernetes.io/component", "nats");
        default -> {
          String pool = name.substring("demo-".length());
          assertThat(labels)
              .containsEntry("app.kubernetes.io/component", "worker")
              .containsEntry("infera.io/pool", pool)
              .containsEntry("infera.io/role", pool);
        }
      }
    }
    // Pool pods carry the pool labels too; selectors leave out the role (immutable selector).
    Deployment prefill = f.poolDeployments().get("prefill");
    assertThat(prefill.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("infera.io/role", "prefill")
        .containsEntry("infera.io/pool", "prefill");
    assertThat(prefill.getSpec().getSelector().getMatchLabels())
        .containsOnlyKeys("infera.io/deployment", "app.kubernetes.io/component", "infera.io/pool");
    assertThat(f.poolServices().get("prefill").getSpec().getClusterIP()).isEqualTo("None");
    assertThat(f.poolServices().get("prefill").getSpec().getSelector())
        .isEqualTo(prefill.getSpec().getSelector().getMatchLabels());
  }

  @Test
  void externalNatsMeansNoNatsObjectsAndItsUrlEverywhere() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec().getNats().setUrl("nats://nats.messaging:4222");
    Fleet f = fleet(idep);
    assertThat(f.natsStatefulSet()).isEmpty();
    assertThat(f.natsService()).isEmpty();
    assertThat(f.natsConfigMap()).isEmpty();
    assertThat(f.all()).noneMatch(o -> o.getMetadata().getName().equals("demo-nats"));
    assertThat(routerYaml(f)).contains("url: nats://nats.messaging:4222");
    assertThat(relay(f, "mixed").getArgs())
        .containsSequence("--nats", "nats://nats.messaging:4222");
  }

  @Test
  void deployedNatsIsAJetStreamStatefulSetWithAVolumeAndAHeadlessService() {
    InferaDeployment idep = idep(Engine.SIM, PoolRole.MIXED);
    idep.getSpec().getNats().setDeploy(new io.infera.operator.api.v1alpha1.NatsDeploySpec());
    idep.getSpec().getNats().getDeploy().setStorage(new Quantity("5Gi"));
    idep.getSpec().getNats().getDeploy().setStorageClass("fast");
    Fleet f = fleet(idep);
    var sts = f.natsStatefulSet().orElseThrow();
    assertThat(sts.getSpec().getServiceName()).isEqualTo("demo-nats");
    assertThat(sts.getSpec().getReplicas()).isEqualTo(1);
    Container nats = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(nats.getArgs()).contains("--jetstream").containsSequence("--store_dir", "/data");
    assertThat(nats.getImage()).isEqualTo(Images.NATS);
    var pvc = sts.getSpec().getVolumeClaimTemplates().get(0);
    assertThat(pvc.getSpec().getResources().getRequests().get("storage"))
        .isEqualTo(new Quantity("5Gi"));
    assertThat(pvc.getSpec().getStorageClassName()).isEqualTo("fast");
    assertThat(f.natsService().orElseThrow().getSpec().getClusterIP()).isEqualTo("None");
    assertThat(routerYaml(f)).contains("url: nats://demo-nats:4222");
    // Relays' snapshots are one message each: far above NATS's 1 MB default for large caches.
    assertThat(nats.getArgs()).containsSequence("--config", "/etc/nats/nats.conf");
    assertThat(f.natsConfigMap().orElseThrow().getData().get("nats.conf"))
        .contains("max_payload: 64MB");
    assertThat(sts.getSpec().getTemplate().getSpec().getVolumes())
        .anyMatch(v -> v.getConfigMap() != null && v.getConfigMap().getName().equals("demo-nats"));
  }

  @Test
  void vllmPrefillAndDecodePoolsGetNixlAndTheirPodIpAsSideChannel() {
    Fleet f = fleet(idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE));
    // vLLM 0.33.0 deprecates kv_both for NixlConnector: producers prefill, consumers decode.
    assertThat(engine(f, "prefill").getArgs())
        .containsSequence(
            "--kv-transfer-config",
            "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}");
    assertThat(engine(f, "decode").getArgs())
        .containsSequence(
            "--kv-transfer-config",
            "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_consumer\"}");
    for (String pool : List.of("prefill", "decode")) {
      Container engine = engine(f, pool);
      assertThat(engine.getEnv())
          .anyMatch(
              e ->
                  e.getName().equals("VLLM_NIXL_SIDE_CHANNEL_HOST")
                      && e.getValueFrom().getFieldRef().getFieldPath().equals("status.podIP"));
    }
    assertThat(engine(f, "prefill").getPorts()).anyMatch(p -> p.getContainerPort() == 5600);
    Fleet sglang = fleet(idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE));
    assertThat(engine(sglang, "prefill").getPorts())
        .anyMatch(p -> p.getName().equals("bootstrap") && p.getContainerPort() == 8998);
    assertThat(engine(sglang, "decode").getPorts()).hasSize(1);
    Container mixed = engine(fleet(idep(Engine.VLLM, PoolRole.MIXED)), "mixed");
    assertThat(mixed.getPorts()).hasSize(1);
    assertThat(mixed.getArgs()).doesNotContain("--kv-transfer-config");
    assertThat(mixed.getEnv()).noneMatch(e -> e.getName().equals("VLLM_NIXL_SIDE_CHANNEL_HOST"));
  }

  @Test
  void vllmCommandIsDerivedFromTheSpecThenThePoolArgs() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec().setPageSize(32);
    idep.getSpec().getPools().get(0).setArgs(List.of("--max-model-len", "8192"));
    Container engine = engine(fleet(idep), "mixed");
    assertThat(engine.getCommand()).containsExactly("vllm", "serve");
    assertThat(engine.getArgs())
        .containsExactly(
            "Qwen/Qwen3-0.6B",
            "--port",
            "8000",
            "--block-size",
            "32",
            "--enable-prefix-caching",
            "--enable-prompt-tokens-details",
            "--kv-events-config",
            "{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\",\"endpoint\":\"tcp://127.0.0.1:5557\","
                + "\"replay_endpoint\":\"tcp://127.0.0.1:5657\",\"topic\":\"kv-events\"}",
            "--max-model-len",
            "8192");
    assertThat(engine.getImage()).isEqualTo(Images.VLLM);
  }

  @ParameterizedTest
  @EnumSource(PoolRole.class)
  void sglangCommandCarriesPageSizeEventsAndTheDisaggregationModeOfPdRoles(PoolRole role) {
    InferaDeployment idep =
        role == PoolRole.MIXED
            ? idep(Engine.SGLANG, PoolRole.MIXED)
            : idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().setPageSize(64);
    Container engine = engine(fleet(idep), role.value());
    assertThat(engine.getCommand()).containsExactly("python3", "-m", "sglang.launch_server");
    List<String> expected =
        new ArrayList<>(
            List.of(
                "--model-path",
                "Qwen/Qwen3-0.6B",
                "--host",
                "0.0.0.0",
                "--port",
                "8000",
                "--page-size",
                "64",
                "--kv-events-config",
                "{\"publisher\":\"zmq\",\"endpoint\":\"tcp://127.0.0.1:5557\","
                    + "\"replay_endpoint\":\"tcp://127.0.0.1:5657\",\"topic\":\"kv-events\"}",
                "--enable-cache-report"));
    if (role != PoolRole.MIXED) {
      expected.addAll(List.of("--disaggregation-mode", role.value()));
    }
    if (role == PoolRole.DECODE) {
      // Without it an SGLang decode worker keeps no prefix cache and publishes no KV events.
      expected.add("--disaggregation-decode-enable-radix-cache");
    }
    assertThat(engine.getArgs()).containsExactlyElementsOf(expected);
  }

  @Test
  void simCommandUsesTheSimulatorsFlagsAndItsImageEntrypoint() {
    InferaDeployment idep = idep(Engine.SIM, PoolRole.MIXED);
    idep.getSpec().setPageSize(8);
    Container engine = engine(fleet(idep), "mixed");
    assertThat(engine.getCommand()).isNullOrEmpty();
    assertThat(engine.getArgs())
        .containsExactly(
            "engine",
            "--host",
            "0.0.0.0",
            "--port",
            "8000",
            "--zmq-port",
            "5557",
            "--replay-port",
            "5657",
            "--kv-events-host",
            "127.0.0.1",
            "--block-size",
            "8",
            "--model",
            "Qwen/Qwen3-0.6B");
    assertThat(engine.getImage()).isEqualTo(Images.SIM);
  }

  @Test
  void imagesAreOverridableFromTheSpecPoolFirst() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().setImage("registry.local/vllm:custom");
    idep.getSpec().getPools().get(1).setImage("registry.local/vllm:decode");
    idep.getSpec().getRouter().setImage("registry.local/router:1");
    Fleet f = fleet(idep);
    assertThat(engine(f, "prefill").getImage()).isEqualTo("registry.local/vllm:custom");
    assertThat(engine(f, "decode").getImage()).isEqualTo("registry.local/vllm:decode");
    assertThat(relay(f, "prefill").getImage()).isEqualTo("registry.local/router:1");
    assertThat(routerContainer(f).getImage()).isEqualTo("registry.local/router:1");
  }

  @Test
  void pythonHashSeedIsSetInEveryEngineContainerOnce() {
    for (InferaDeployment idep : VARIANTS) {
      idep.getSpec().setPythonHashSeed("1234");
      PoolSpec first = idep.getSpec().getPools().get(0);
      // An equal PYTHONHASHSEED in the pool's env is accepted and not repeated.
      first.setEnv(List.of(env("PYTHONHASHSEED", "1234"), env("HF_HOME", "/cache")));
      Fleet f = fleet(idep);
      for (Deployment d : f.poolDeployments().values()) {
        Container engine = d.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(engine.getName()).isEqualTo("engine");
        assertThat(engine.getEnv().stream().filter(e -> e.getName().equals("PYTHONHASHSEED")))
            .singleElement()
            .extracting(EnvVar::getValue)
            .isEqualTo("1234");
      }
      assertThat(engine(f, first.getName()).getEnv())
          .extracting(EnvVar::getName)
          .contains("HF_HOME");
    }
  }

  @Test
  void gpusAreRequestedAndLimitedWithTheirResourceName() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().getPools().get(0).getResources().setGpu(4);
    idep.getSpec().getPools().get(1).getResources().setGpu(2);
    idep.getSpec().getPools().get(1).getResources().setGpuType("amd.com/gpu");
    Fleet f = fleet(idep);
    var prefill = engine(f, "prefill").getResources();
    assertThat(prefill.getRequests()).containsEntry("nvidia.com/gpu", new Quantity("4"));
    assertThat(prefill.getLimits()).containsEntry("nvidia.com/gpu", new Quantity("4"));
    assertThat(prefill.getLimits()).containsEntry("memory", new Quantity("16Gi"));
    var decode = engine(f, "decode").getResources();
    assertThat(decode.getLimits()).containsEntry("amd.com/gpu", new Quantity("2"));
    assertThat(decode.getLimits()).doesNotContainKey("nvidia.com/gpu");

    Fleet sim = fleet(idep(Engine.SIM, PoolRole.MIXED));
    assertThat(engine(sim, "mixed").getResources().getLimits()).doesNotContainKey("nvidia.com/gpu");
  }

  @Test
  void sharedMemoryIsAnInMemoryEmptyDirOnDevShm() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().getPools().get(0).getResources().setSharedMemory(new Quantity("8Gi"));
    Fleet f = fleet(idep);
    Volume sized = volume(f, "prefill", "dshm");
    assertThat(sized.getEmptyDir().getMedium()).isEqualTo("Memory");
    assertThat(sized.getEmptyDir().getSizeLimit()).isEqualTo(new Quantity("8Gi"));
    assertThat(engine(f, "prefill").getVolumeMounts())
        .anyMatch(m -> m.getName().equals("dshm") && m.getMountPath().equals("/dev/shm"));
    // A GPU engine without sharedMemory still gets /dev/shm, bounded by the pod's memory.
    Volume unsized = volume(f, "decode", "dshm");
    assertThat(unsized.getEmptyDir().getMedium()).isEqualTo("Memory");
    assertThat(unsized.getEmptyDir().getSizeLimit()).isNull();
    // The simulator needs none unless asked.
    Fleet sim = fleet(idep(Engine.SIM, PoolRole.MIXED));
    assertThat(podSpec(sim, "mixed").getVolumes()).noneMatch(v -> v.getName().equals("dshm"));
  }

  @Test
  void probesCheckHealthAndGiveModelLoadingThirtyMinutes() {
    for (InferaDeployment idep : VARIANTS) {
      Fleet f = fleet(idep);
      boolean weights = idep.getSpec().getEngine() != Engine.SIM;
      for (String pool : f.poolDeployments().keySet()) {
        Container engine = engine(f, pool);
        assertThat(engine.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/health");
        assertThat(engine.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health");
        Probe startup = engine.getStartupProbe();
        assertThat(startup.getHttpGet().getPath()).isEqualTo("/health");
        int budget = startup.getPeriodSeconds() * startup.getFailureThreshold();
        if (weights) {
          assertThat(budget).isGreaterThanOrEqualTo(30 * 60);
        } else {
          assertThat(budget).isBetween(10, 300);
        }
      }
      Container router = routerContainer(f);
      assertThat(router.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/ready");
      assertThat(router.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health");
      assertThat(router.getPorts()).anyMatch(p -> p.getContainerPort() == 8000);
      assertThat(router.getPorts())
          .anyMatch(p -> p.getContainerPort() == 8081 && p.getName().equals("admin"));
      // Probes stay on the public port; /metrics moved to the admin port.
      assertThat(router.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
      assertThat(f.routerService().getSpec().getPorts())
          .extracting(p -> p.getName() + ":" + p.getPort())
          .containsExactly("http:8000", "admin:8081");
      assertThat(router.getVolumeMounts())
          .anyMatch(m -> m.getMountPath().equals(DesiredRouter.ADMIN_TOKEN_DIR) && m.getReadOnly());
      assertThat(f.routerDeployment().getSpec().getTemplate().getSpec().getVolumes())
          .anyMatch(
              v ->
                  v.getSecret() != null
                      && v.getSecret().getSecretName().equals("demo-infera")
                      && v.getSecret().getItems().get(0).getKey().equals("adminToken"));
      assertThat(f.routerDeployment().getSpec().getTemplate().getMetadata().getAnnotations())
          .containsEntry("prometheus.io/path", "/metrics")
          .containsEntry("prometheus.io/port", "8081");
    }
  }

  @Test
  void gpuPoolsRollOutWithoutSurgeAndCpuPoolsWithoutUnavailability() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().getPools().get(1).getResources().setGpu(0);
    Fleet f = fleet(idep);
    var gpu = f.poolDeployments().get("prefill").getSpec().getStrategy().getRollingUpdate();
    assertThat(gpu.getMaxSurge().getIntVal()).isZero();
    assertThat(gpu.getMaxUnavailable().getIntVal()).isEqualTo(1);
    var cpu = f.poolDeployments().get("decode").getSpec().getStrategy().getRollingUpdate();
    assertThat(cpu.getMaxSurge().getIntVal()).isEqualTo(1);
    assertThat(cpu.getMaxUnavailable().getIntVal()).isZero();
  }

  @Test
  void workersDrainBeforeTheEngineStops() {
    for (InferaDeployment idep : VARIANTS) {
      Fleet f = fleet(idep);
      for (String pool : f.poolDeployments().keySet()) {
        PodSpec pod = podSpec(f, pool);
        long preStop = engine(f, pool).getLifecycle().getPreStop().getSleep().getSeconds();
        assertThat(preStop).isGreaterThanOrEqualTo(5);
        assertThat(pod.getTerminationGracePeriodSeconds()).isGreaterThan(preStop + 20);
        assertThat(relay(f, pool).getLifecycle().getPreStop().getSleep().getSeconds())
            .isEqualTo(preStop);
      }
    }
  }

  @Test
  void routerAndRelayRunRestricted() {
    for (InferaDeployment idep : VARIANTS) {
      Fleet f = fleet(idep);
      List<Container> restricted = new ArrayList<>();
      restricted.add(routerContainer(f));
      for (String pool : f.poolDeployments().keySet()) {
        restricted.add(relay(f, pool));
      }
      for (Container c : restricted) {
        SecurityContext sc = c.getSecurityContext();
        assertThat(sc.getRunAsNonRoot()).as(c.getName()).isTrue();
        assertThat(sc.getReadOnlyRootFilesystem()).as(c.getName()).isTrue();
        assertThat(sc.getAllowPrivilegeEscalation()).as(c.getName()).isFalse();
        assertThat(sc.getCapabilities().getDrop()).as(c.getName()).containsExactly("ALL");
        assertThat(sc.getSeccompProfile().getType()).as(c.getName()).isEqualTo("RuntimeDefault");
      }
      var pod = f.routerDeployment().getSpec().getTemplate().getSpec();
      assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
      assertThat(pod.getServiceAccountName()).isEqualTo("demo-router");
      for (String pool : f.poolDeployments().keySet()) {
        assertThat(engine(f, pool).getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
      }
    }
  }

  @Test
  void routerMayOnlyReadEndpointSlices() {
    Fleet f = fleet(idep(Engine.VLLM, PoolRole.MIXED));
    assertThat(f.routerRole().getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getApiGroups()).containsExactly("discovery.k8s.io");
              assertThat(r.getResources()).containsExactly("endpointslices");
              assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
            });
    assertThat(f.routerRoleBinding().getRoleRef().getName()).isEqualTo("demo-router");
    assertThat(f.routerRoleBinding().getSubjects())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getName()).isEqualTo("demo-router");
              assertThat(s.getNamespace()).isEqualTo("ns");
            });
  }

  @Test
  void routerServesTheConfigFileFromItsConfigMap() {
    Fleet f = fleet(idep(Engine.VLLM, PoolRole.MIXED));
    assertThat(routerContainer(f).getArgs())
        .containsExactly("serve", "--config", "/etc/infera/router.yaml");
    assertThat(f.routerConfigMap().getData()).containsOnlyKeys("router.yaml");
    assertThat(f.routerService().getSpec().getSelector())
        .isEqualTo(f.routerDeployment().getSpec().getSelector().getMatchLabels());
  }

  @Test
  void relaySidecarForwardsTheEnginesEventsUnderThePodName() {
    InferaDeployment idep = idep(Engine.SIM, PoolRole.MIXED);
    idep.getSpec().setPageSize(32);
    idep.getSpec().getNats().setStream("S");
    idep.getSpec().getNats().setSubjectPrefix("a.b");
    idep.getSpec().getNats().setSnapshotBucket("snap");
    Container relay = relay(fleet(idep), "mixed");
    assertThat(relay.getArgs())
        .containsExactly(
            "relay",
            "--zmq",
            "tcp://127.0.0.1:5557",
            "--zmq-mode",
            "bind",
            "--replay",
            "tcp://127.0.0.1:5657",
            "--nats",
            "nats://demo-nats:4222",
            "--worker-id",
            "$(POD_NAME)",
            "--pool",
            "mixed",
            "--engine",
            "vllm",
            "--block-size",
            "32",
            "--subject-prefix",
            "a.b",
            "--stream",
            "S",
            "--snapshot-bucket",
            "snap",
            "--http-port",
            "9400",
            "--nats-user",
            "relay-mixed",
            "--nats-password-file",
            "/etc/infera-nats/auth/password");
    assertThat(relay.getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("relay-http");
              assertThat(p.getContainerPort()).isEqualTo(9400);
            });
    assertThat(relay.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health");
    assertThat(relay.getReadinessProbe()).as("a relay must not take its engine out").isNull();
    assertThat(relay.getEnv())
        .anyMatch(
            e ->
                e.getName().equals("POD_NAME")
                    && e.getValueFrom().getFieldRef().getFieldPath().equals("metadata.name"));
    Container sglangRelay = relay(fleet(idep(Engine.SGLANG, PoolRole.MIXED)), "mixed");
    assertThat(sglangRelay.getArgs()).containsSequence("--engine", "sglang");
  }

  @Test
  void pageSizeReachesEveryEngineEveryRelayAndTheRouterTogether() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    idep.getSpec().setPageSize(128);
    Fleet f = fleet(idep);
    for (String pool : f.poolDeployments().keySet()) {
      assertThat(engine(f, pool).getArgs()).containsSequence("--block-size", "128");
      assertThat(relay(f, pool).getArgs()).containsSequence("--block-size", "128");
    }
    assertThat(routerYaml(f)).contains("pageSize: 128");
  }

  @Test
  void configHashChangesWithTheRouterConfigAndOnlyThen() {
    String base = hash(idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE));

    // Changes outside the RouterConfig keep the routers running.
    InferaDeployment same = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    same.getSpec().getPools().get(0).setReplicas(7);
    same.getSpec().getPools().get(0).setArgs(List.of("--max-model-len", "4096"));
    same.getSpec().getPools().get(1).setImage("other/vllm:1");
    same.getSpec().getPools().get(1).getResources().setGpu(8);
    same.getSpec().getRouter().setReplicas(5);
    same.getSpec().getRouter().setImage("other/router:2");
    same.getSpec().setPythonHashSeed("99");
    Collections.reverse(same.getSpec().getPools());
    assertThat(hash(same)).isEqualTo(base);

    // Every RouterConfig change rolls them.
    List<java.util.function.Consumer<InferaDeployment>> changes =
        List.of(
            i -> i.getSpec().setPageSize(32),
            i -> i.getSpec().setModel("other/model"),
            i -> i.getSpec().getRouter().setOverlapWeight(2.0),
            i -> i.getSpec().getRouter().setPrefillOverlapWeight(10.0),
            i ->
                i.getSpec()
                    .getRouter()
                    .setPolicy(io.infera.operator.api.v1alpha1.RouterPolicy.LEAST_LOADED),
            i -> i.getSpec().getRouter().getTokenizer().setHub("Qwen/Qwen3-0.6B"),
            i -> i.getSpec().getNats().setUrl("nats://elsewhere:4222"),
            i -> i.getSpec().getNats().setStream("OTHER"),
            i -> i.getSpec().getPools().add(Fixtures.pool("extra", PoolRole.MIXED, 1, 1)),
            i -> i.getMetadata().setNamespace("other"));
    for (int k = 0; k < changes.size(); k++) {
      InferaDeployment changed = idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
      changes.get(k).accept(changed);
      assertThat(hash(changed)).as("change #" + k).isNotEqualTo(base);
    }
  }

  @Test
  void outputIsDeterministicAndIndependentOfPoolOrder() {
    InferaDeployment a = idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE);
    InferaDeployment b = idep(Engine.SGLANG, PoolRole.PREFILL, PoolRole.DECODE);
    Collections.reverse(b.getSpec().getPools());
    String ya = Renderer.write(fleet(a).all(), Renderer.Format.YAML);
    assertThat(Renderer.write(fleet(a).all(), Renderer.Format.YAML)).isEqualTo(ya);
    assertThat(Renderer.write(fleet(b).all(), Renderer.Format.YAML)).isEqualTo(ya);
  }

  @Test
  void buildingDoesNotShareMutableObjectsWithTheResource() {
    InferaDeployment idep = idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec().getPools().get(0).setEnv(List.of(env("A", "1")));
    Fleet f = fleet(idep);
    engine(f, "mixed").getEnv().stream()
        .filter(e -> e.getName().equals("A"))
        .findFirst()
        .orElseThrow()
        .setValue("changed");
    engine(f, "mixed").getResources().getLimits().get("memory").setAmount("1");
    assertThat(idep.getSpec().getPools().get(0).getEnv().get(0).getValue()).isEqualTo("1");
    assertThat(idep.getSpec().getPools().get(0).getResources().getMemory().getAmount())
        .isEqualTo("16");
  }

  // ------------------------------------------------------------------ helpers

  static String hash(InferaDeployment idep) {
    return fleet(idep)
        .routerDeployment()
        .getSpec()
        .getTemplate()
        .getMetadata()
        .getAnnotations()
        .get(DesiredRouter.CONFIG_HASH_ANNOTATION);
  }

  static String routerYaml(Fleet f) {
    return f.routerConfigMap().getData().get("router.yaml");
  }

  static PodSpec podSpec(Fleet f, String pool) {
    return f.poolDeployments().get(pool).getSpec().getTemplate().getSpec();
  }

  static Container engine(Fleet f, String pool) {
    return container(podSpec(f, pool).getContainers(), "engine");
  }

  static Container relay(Fleet f, String pool) {
    return container(podSpec(f, pool).getContainers(), "relay");
  }

  static Container routerContainer(Fleet f) {
    return container(
        f.routerDeployment().getSpec().getTemplate().getSpec().getContainers(), "router");
  }

  static Volume volume(Fleet f, String pool, String name) {
    return podSpec(f, pool).getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name + " in pool " + pool));
  }

  private static Container container(List<Container> containers, String name) {
    return containers.stream()
        .filter(c -> c.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no container " + name));
  }

  static EnvVar env(String name, String value) {
    return new EnvVar(name, value, null);
  }
}
