package io.infera.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.GeneratedSecret;
import io.infera.operator.desired.NatsCredentials;
import io.infera.operator.desired.RenderInputs;
import io.infera.operator.render.Renderer;
import io.infera.operator.render.ResourceParser;
import io.infera.router.testing.NatsServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The README's no-GPU quickstart as a node would run it, without a cluster or a container engine:
 * {@code config/samples/sim.yaml} rendered by the operator's renderer, and its three pods (NATS,
 * one simulated engine with its relay sidecar, one router) run from the images this build made,
 * each container the way its rendered spec says (see {@link Pod}), each pod in its own network
 * namespace. A completion goes through the router to the engine, its KV events come back through
 * relay → NATS → router, and the same prompt again hits the engine's cached blocks.
 *
 * <p>One deviation from the rendered objects: the router's RouterConfig gets {@code discovery:
 * static} with the engine pod's address instead of {@code kubernetes} (there is no API server to
 * list EndpointSlices from); everything else, NATS's config included, is as rendered. One replica
 * per workload. NATS is Debian's {@code nats-server} in a root of its own (no registry here).
 *
 * <p>Needs root and network namespaces ({@code ip netns}); skipped, loudly, without them.
 */
class ImagesE2EIT {

  private static final Duration READY = Duration.ofSeconds(120);
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final List<Pod> pods = new ArrayList<>();
  private PodNetwork network;
  private Map<String, Secret> secrets = Map.of();
  private Path work;

  @AfterEach
  void tearDown() {
    // Always, whatever failed: processes, then namespaces and bridge, then the files.
    for (Pod p : pods) {
      p.close();
    }
    if (network != null) {
      network.close();
    }
    if (work != null) {
      PodNetwork.deleteTree(work);
    }
  }

  @Test
  void theSimSampleRunsAsItsPodsSay() throws Exception {
    assumeNodeLike();
    Path repo = Path.of(System.getProperty("infera.repo"));
    Path runner = repo.resolve("build/run-image.py");
    String version = System.getProperty("project.version");
    work =
        Path.of(System.getProperty("infera.e2e.work"))
            .resolve("run-" + ProcessHandle.current().pid());
    PodNetwork.deleteTree(work);

    Renderer.Result result =
        Renderer.render(
            Files.readString(repo.resolve("config/samples/sim.yaml")),
            "config/samples/sim.yaml",
            Renderer.Format.JSON);
    assertThat(result).isInstanceOf(Renderer.Result.Rendered.class);
    List<HasMetadata> objects =
        Serialization.unmarshal(((Renderer.Result.Rendered) result).text(), KubernetesList.class)
            .getItems();
    Map<String, ConfigMap> configMaps = byName(objects, ConfigMap.class);
    secrets = generatedSecrets(Files.readString(repo.resolve("config/samples/sim.yaml")));
    Map<String, Service> services = byName(objects, Service.class);
    StatefulSet nats = byName(objects, StatefulSet.class).get("sim-nats");
    Deployment workers = byName(objects, Deployment.class).get("sim-workers");
    Deployment router = byName(objects, Deployment.class).get("sim-router");
    String namespace = nats.getMetadata().getNamespace();

    Image routerImage =
        Image.unpack(
            "infera-router",
            Path.of(System.getProperty("infera.e2e.router.image")),
            work.resolve("images/router"),
            runner);
    Image simImage =
        Image.unpack(
            "infera-sim",
            Path.of(System.getProperty("infera.e2e.sim.image")),
            work.resolve("images/sim"),
            runner);
    Image natsImage = Image.natsStandIn(NatsServer.binary(), work.resolve("images/nats"));
    Map<String, Image> images =
        Map.of(
            "ghcr.io/infera/infera-router:" + version, routerImage,
            "ghcr.io/infera/infera-sim:" + version, simImage);

    network = new PodNetwork();
    String natsPod = "sim-nats-0";
    String workerPod = "sim-workers-6b8f9d7c4-q2x7z";
    String routerPod = "sim-router-5f7d8b9c6-k4m2n";
    Map<String, String> nsOf = new LinkedHashMap<>();
    for (String p : List.of(natsPod, workerPod, routerPod)) {
      nsOf.put(p, network.add(p));
    }
    // Cluster DNS stand-in: each Service's names → the address of the pod behind it (headless
    // Services resolve to it; the router's ClusterIP would forward to it).
    Map<String, String> serviceIps =
        Map.of(
            "sim-nats", network.address(natsPod),
            "sim-workers", network.address(workerPod),
            "sim-router", network.address(routerPod));
    assertThat(services.keySet()).containsExactlyInAnyOrderElementsOf(serviceIps.keySet());

    // The only deviation from the rendered objects (see the class comment).
    ConfigMap routerConfig = configMaps.get("sim-router");
    routerConfig
        .getData()
        .put(
            "router.yaml",
            staticDiscovery(
                routerConfig.getData().get("router.yaml"), workerPod, network.address(workerPod)));

    java.util.function.Function<String, Image> imageOf =
        ref -> {
          if (ref.startsWith("nats:")) {
            return natsImage;
          }
          Image i = images.get(ref);
          if (i == null) {
            throw new IllegalStateException(
                "rendered image " + ref + " is not one this build made (" + images.keySet() + ")");
          }
          return i;
        };

    Pod natsP =
        pod(
            natsPod,
            "sim-nats",
            namespace,
            nats.getSpec().getTemplate(),
            configMaps,
            nats.getSpec().getVolumeClaimTemplates().stream()
                .map(c -> c.getMetadata().getName())
                .collect(Collectors.toSet()),
            nsOf,
            serviceIps);
    natsP.start(imageOf, runner);
    natsP.awaitReady(READY);

    Pod workerP =
        pod(
            workerPod,
            null,
            namespace,
            workers.getSpec().getTemplate(),
            configMaps,
            Set.of(),
            nsOf,
            serviceIps);
    workerP.start(imageOf, runner);
    workerP.awaitReady(READY);

    Pod routerP =
        pod(
            routerPod,
            null,
            namespace,
            router.getSpec().getTemplate(),
            configMaps,
            Set.of(),
            nsOf,
            serviceIps);
    routerP.start(imageOf, runner);
    routerP.awaitReady(READY);

    String base = "http://" + network.address(routerPod) + ":8000";
    // The admin endpoints are on the router's admin port (admin.port, default 8081).
    String admin = "http://" + network.address(routerPod) + ":8081";
    // ... and require the generated token (INFERA_ADMIN_TOKEN_FILE, the mounted Secret key).
    String token =
        new String(
            java.util.Base64.getDecoder()
                .decode(secrets.get("sim-infera").getData().get(GeneratedSecret.ADMIN_TOKEN_KEY)),
            java.nio.charset.StandardCharsets.UTF_8);
    assertThat(get(admin + "/v1/admin/status", null).statusCode())
        .as("the admin port without the token")
        .isEqualTo(401);
    assertThat(get(admin + "/v1/admin/status", token).statusCode()).isEqualTo(200);
    String body = Files.readString(repo.resolve("docs/examples/completion.json"));
    HttpResponse<String> first = post(base + "/v1/completions", body);
    assertThat(first.statusCode()).as(first.body() + "\n" + diagnosis()).isEqualTo(200);
    assertThat(first.headers().firstValue("x-infera-cache-hit-blocks")).hasValue("0");

    // The engine's KV events: engine → ZMQ (pod loopback) → relay → NATS → the router's index.
    long blocks = 0;
    long deadline = System.currentTimeMillis() + 30_000;
    while (blocks == 0) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError(
            "no KV events of " + workerPod + " reached the router in 30 s\n" + diagnosis());
      }
      Thread.sleep(250);
      HttpResponse<String> view = get(admin + "/v1/admin/cache-view/" + workerPod, token);
      if (view.statusCode() == 200) {
        blocks = new ObjectMapper().readTree(view.body()).path("block_count").asLong();
      }
    }
    HttpResponse<String> second = post(base + "/v1/completions", body);
    assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
    int hits =
        Integer.parseInt(second.headers().firstValue("x-infera-cache-hit-blocks").orElse("0"));
    assertThat(hits).as(diagnosis()).isPositive().isLessThanOrEqualTo((int) blocks);
    JsonNode status = new ObjectMapper().readTree(get(admin + "/v1/admin/status", token).body());
    assertThat(status.toString()).contains(workerPod);
    for (Pod p : pods) {
      p.assertRunning();
    }
  }

  private Pod pod(
      String name,
      String subdomain,
      String namespace,
      PodTemplateSpec template,
      Map<String, ConfigMap> configMaps,
      Set<String> claims,
      Map<String, String> nsOf,
      Map<String, String> serviceIps) {
    String ip = network.address(name);
    Pod.Placement at =
        new Pod.Placement(
            name,
            name,
            subdomain,
            namespace,
            nsOf.get(name),
            ip,
            network.hostAddress(),
            hosts(ip, name, subdomain, namespace, serviceIps),
            template.getMetadata());
    Pod p =
        new Pod(
            at,
            template.getSpec(),
            configMaps,
            secrets,
            claims,
            work.resolve("pods").resolve(name),
            work.resolveSibling("logs"));
    pods.add(p);
    return p;
  }

  /**
   * The Secrets the reconciler generates for the sample (never rendered): built by the operator's
   * own builders with fresh random values, as on a first reconcile.
   */
  private static Map<String, Secret> generatedSecrets(String sample) throws Exception {
    InferaDeployment idep = ResourceParser.parse(sample, "config/samples/sim.yaml");
    RenderInputs in = RenderInputs.of(idep);
    SecureRandom random = new SecureRandom();
    Map<String, Secret> out = new java.util.LinkedHashMap<>();
    for (Secret s :
        List.of(
            GeneratedSecret.build(in, Map.of(), random),
            NatsCredentials.secret(in, Map.of(), () -> NatsCredentials.generatePassword(random)))) {
      out.put(s.getMetadata().getName(), s);
    }
    return out;
  }

  /** /etc/hosts as the kubelet writes it, plus the Services' names (see the class comment). */
  static String hosts(
      String ip,
      String hostname,
      String subdomain,
      String namespace,
      Map<String, String> services) {
    StringBuilder sb =
        new StringBuilder(
            "# Kubernetes-managed hosts file.\n"
                + "127.0.0.1\tlocalhost\n"
                + "::1\tlocalhost ip6-localhost ip6-loopback\n"
                + "fe00::0\tip6-localnet\n"
                + "fe00::0\tip6-mcastprefix\n"
                + "fe00::1\tip6-allnodes\n"
                + "fe00::2\tip6-allrouters\n");
    if (subdomain != null) {
      sb.append(ip)
          .append('\t')
          .append(hostname)
          .append('.')
          .append(subdomain)
          .append('.')
          .append(namespace)
          .append(".svc.cluster.local\t")
          .append(hostname)
          .append('\n');
    } else {
      sb.append(ip).append('\t').append(hostname).append('\n');
    }
    sb.append("\n# Entries added by HostAliases.\n");
    services.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              String s = e.getKey();
              sb.append(e.getValue())
                  .append('\t')
                  .append(
                      String.join(
                          "\t",
                          s,
                          s + "." + namespace,
                          s + "." + namespace + ".svc",
                          s + "." + namespace + ".svc.cluster.local"))
                  .append('\n');
            });
    return sb.toString();
  }

  /** The rendered RouterConfig with {@code discovery.backend: static} and the engine pod. */
  @SuppressWarnings("unchecked")
  static String staticDiscovery(String routerYaml, String workerPod, String workerIp) {
    Yaml yaml = new Yaml();
    Map<String, Object> cfg = yaml.load(routerYaml);
    Map<String, Object> discovery = (Map<String, Object>) cfg.get("discovery");
    List<Map<String, Object>> pools = (List<Map<String, Object>>) discovery.get("pools");
    assertThat(pools).hasSize(1);
    Map<String, Object> pool = pools.get(0);
    Map<String, Object> worker = new LinkedHashMap<>();
    // The id the kubernetes backend gives a worker: its EndpointSlice target's pod name.
    worker.put("id", workerPod);
    worker.put("url", "http://" + workerIp + ":" + pool.get("port"));
    worker.put("role", pool.get("role"));
    worker.put("engine", pool.get("engine"));
    // The relay publishes under its pool's subjects; a worker outside that pool is not trusted.
    worker.put("pool", pool.get("name"));
    Map<String, Object> replaced = new LinkedHashMap<>();
    replaced.put("backend", "static");
    replaced.put("workers", List.of(worker));
    cfg.put("discovery", replaced);
    return yaml.dump(cfg);
  }

  private String diagnosis() {
    return pods.stream().map(Pod::diagnosis).collect(Collectors.joining());
  }

  private static void assumeNodeLike() {
    String reason = null;
    if (!"root".equals(System.getProperty("user.name"))) {
      reason = "not root (needs mount, chroot and network namespaces)";
    } else {
      reason = PodNetwork.unsupportedReason();
    }
    if (reason != null) {
      System.err.println("*** ImagesE2EIT SKIPPED: " + reason);
    }
    Assumptions.assumeTrue(reason == null, "ImagesE2EIT skipped: " + reason);
  }

  private static <T extends HasMetadata> Map<String, T> byName(
      List<HasMetadata> all, Class<T> type) {
    Map<String, T> out = new LinkedHashMap<>();
    for (HasMetadata o : all) {
      if (type.isInstance(o)) {
        out.put(o.getMetadata().getName(), type.cast(o));
      }
    }
    return out;
  }

  private static HttpResponse<String> post(String uri, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(uri))
            .timeout(Duration.ofSeconds(30))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String uri, String bearer)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(5));
    if (bearer != null) {
      b.header("authorization", "Bearer " + bearer);
    }
    return HTTP.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}
