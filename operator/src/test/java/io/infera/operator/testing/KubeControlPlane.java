package io.infera.operator.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Assumptions;

/**
 * A real Kubernetes control plane on loopback for the ITs, envtest-style: etcd 3.6, kube-apiserver
 * and kube-controller-manager running only the garbage collector, all built from the Kubernetes Go
 * modules by {@code build/kube-testenv.sh} (cached under {@code ~/.cache/infera/kube-testenv/}). No
 * kubelet, no scheduler: Deployments and StatefulSets are stored, never run.
 *
 * <p>One control plane per test JVM ({@link #shared()}), stopped when the JVM exits; every test
 * works in its own namespace ({@link #newNamespace}). Authentication is a static token file: an
 * admin token in {@code system:masters}, and impersonation for any other identity (the operator's
 * service account, so RBAC is the real one). An audit log records every write ({@link #writes}).
 * Without a Go toolchain or the Go module proxy the calling test is skipped, loudly; any other
 * failure fails it.
 */
public final class KubeControlPlane implements AutoCloseable {

  /** kubectl and the server agree on this release (kubectl 1.35 from the install tests). */
  public static final String KUBERNETES_VERSION = "v1.35.4";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(45);
  private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
  private static final Object LOCK = new Object();
  private static KubeControlPlane shared;
  private static String unavailable;

  private final Path dir;
  private final String adminToken;
  private final int apiPort;
  private final List<Process> processes = new ArrayList<>();
  private final AtomicInteger namespaces = new AtomicInteger();

  /**
   * One write the audit log recorded; {@code user} is the identity the request acted as (the
   * impersonated user when there was one).
   */
  public record Write(
      String verb,
      String user,
      String resource,
      String subresource,
      String namespace,
      String name,
      int code,
      Instant at) {}

  private KubeControlPlane(Path dir, String adminToken, int apiPort) {
    this.dir = dir;
    this.adminToken = adminToken;
    this.apiPort = apiPort;
  }

  /** The control plane of this JVM, started on first use; the test is skipped without Go. */
  public static KubeControlPlane shared() {
    synchronized (LOCK) {
      if (shared == null && unavailable == null) {
        Path bin = binaries();
        if (bin != null) {
          shared = start(bin);
          Runtime.getRuntime()
              .addShutdownHook(new Thread(shared::close, "kube-control-plane-stop"));
        }
      }
      if (shared == null) {
        System.err.println("SKIPPED (real Kubernetes API server): " + unavailable);
        Assumptions.abort("no real Kubernetes API server: " + unavailable);
      }
      return shared;
    }
  }

  /** The API server's URL ({@code https://127.0.0.1:PORT}). */
  public String url() {
    return "https://127.0.0.1:" + apiPort;
  }

  /** A kubeconfig for the admin identity (for kubectl). */
  public Path kubeconfig() {
    return dir.resolve("admin.kubeconfig");
  }

  /**
   * kubectl's discovery cache for this control plane ({@code --cache-dir}): not the user's {@code
   * ~/.kube/cache}, which would outlive the test and mix API groups of earlier runs.
   */
  public String kubectlCacheDir() {
    return "--cache-dir=" + dir.resolve("kubectl-cache");
  }

  /** A client as the cluster admin ({@code system:masters}). */
  public KubernetesClient admin() {
    return new KubernetesClientBuilder().withConfig(config().build()).build();
  }

  /** A client that impersonates {@code user} in {@code groups}: RBAC decides what it may do. */
  public KubernetesClient as(String user, String... groups) {
    return new KubernetesClientBuilder()
        .withConfig(config().withImpersonateUsername(user).withImpersonateGroups(groups).build())
        .build();
  }

  /**
   * A client as the service account {@code namespace/name}, with the groups the API server gives
   * service-account tokens.
   */
  public KubernetesClient asServiceAccount(String namespace, String name) {
    return as(
        "system:serviceaccount:" + namespace + ":" + name,
        "system:serviceaccounts",
        "system:serviceaccounts:" + namespace,
        "system:authenticated");
  }

  /** Creates a fresh namespace named {@code prefix-N-xxxx} and returns its name. */
  public String newNamespace(String prefix) {
    String name =
        prefix
            + "-"
            + namespaces.incrementAndGet()
            + "-"
            + UUID.randomUUID().toString().substring(0, 6);
    try (KubernetesClient c = admin()) {
      c.namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
    }
    return name;
  }

  /**
   * Every write (create, update, patch, delete) the API server completed, in order, that {@code
   * filter} accepts. Reads the audit log as it is now.
   */
  public List<Write> writes(Predicate<Write> filter) {
    Path log = dir.resolve("audit.log");
    List<Write> out = new ArrayList<>();
    try (Stream<String> lines = Files.lines(log, StandardCharsets.UTF_8)) {
      lines.forEach(
          line -> {
            try {
              JsonNode e = JSON.readTree(line);
              if (!"ResponseComplete".equals(e.path("stage").asText())) {
                return;
              }
              JsonNode ref = e.path("objectRef");
              Write w =
                  new Write(
                      e.path("verb").asText(),
                      // The effective identity: an impersonated request (the operator's
                      // service account) is recorded under the user it acts as.
                      e.path("impersonatedUser")
                          .path("username")
                          .asText(e.path("user").path("username").asText()),
                      ref.path("resource").asText(),
                      ref.path("subresource").asText(""),
                      ref.path("namespace").asText(""),
                      ref.path("name").asText(""),
                      e.path("responseStatus").path("code").asInt(),
                      Instant.parse(e.path("stageTimestamp").asText()));
              if (filter.test(w)) {
                out.add(w);
              }
            } catch (IOException | RuntimeException ignored) {
              // A line still being written.
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** The tail of every component's log, for a failure message. */
  public String logs() {
    StringBuilder sb = new StringBuilder();
    for (String name : List.of("etcd", "kube-apiserver", "kube-controller-manager")) {
      sb.append("--- ").append(name).append(" ---\n").append(tail(dir.resolve(name + ".log")));
    }
    return sb.toString();
  }

  @Override
  public void close() {
    for (int i = processes.size() - 1; i >= 0; i--) {
      Process p = processes.get(i);
      p.destroy();
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroyForcibly();
      }
    }
    processes.clear();
    deleteTree(dir);
  }

  private ConfigBuilder config() {
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(url())
        .withOauthToken(adminToken)
        .withTrustCerts(true)
        .withDisableHostnameVerification(true)
        .withRequestTimeout(30_000)
        .withConnectionTimeout(10_000);
  }

  /** The binaries' directory, or null with {@link #unavailable} set (no Go, no proxy). */
  private static Path binaries() {
    Path script = Fixtures.repoRoot().resolve("build/kube-testenv.sh");
    try {
      Path err = Files.createTempFile("kube-testenv", ".err");
      Process p =
          new ProcessBuilder("bash", script.toString())
              .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile()))
              .start();
      p.getOutputStream().close();
      // Progress goes to the test output while the (first, long) build runs.
      Thread progress =
          new Thread(
              () -> {
                long seen = 0;
                long started = System.nanoTime();
                long told = 0;
                while (p.isAlive()) {
                  seen = echo(err, seen);
                  long minutes = TimeUnit.NANOSECONDS.toMinutes(System.nanoTime() - started);
                  if (minutes > told) {
                    told = minutes;
                    System.err.println("kube-testenv: still building (" + minutes + " min)");
                  }
                  sleep(2000);
                }
                echo(err, seen);
              },
              "kube-testenv-progress");
      progress.setDaemon(true);
      progress.start();
      byte[] stdout = p.getInputStream().readAllBytes();
      if (!p.waitFor(BUILD_TIMEOUT.toMinutes(), TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError("build/kube-testenv.sh did not finish in " + BUILD_TIMEOUT);
      }
      progress.join(5000);
      String stderr = Files.readString(err, StandardCharsets.UTF_8).strip();
      Files.deleteIfExists(err);
      int rc = p.exitValue();
      if (rc == 3 || rc == 4) {
        unavailable = "build/kube-testenv.sh exit " + rc + ": " + stderr;
        return null;
      }
      if (rc != 0) {
        throw new AssertionError("build/kube-testenv.sh exited " + rc + ":\n" + stderr);
      }
      List<String> lines =
          new String(stdout, StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
      if (lines.isEmpty()) {
        throw new AssertionError("build/kube-testenv.sh printed no directory:\n" + stderr);
      }
      return Path.of(lines.get(lines.size() - 1).strip());
    } catch (IOException e) {
      unavailable = "cannot run bash " + script + ": " + e.getMessage();
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while building the control plane", e);
    }
  }

  private static long echo(Path file, long from) {
    try {
      byte[] all = Files.readAllBytes(file);
      if (all.length > from) {
        System.err.print(
            new String(all, (int) from, all.length - (int) from, StandardCharsets.UTF_8));
      }
      return all.length;
    } catch (IOException e) {
      return from;
    }
  }

  private static KubeControlPlane start(Path bin) {
    Path dir;
    try {
      dir = Files.createTempDirectory("infera-kube-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String token = UUID.randomUUID().toString();
    int etcdClient = freePort();
    int etcdPeer = freePort();
    int api = freePort();
    KubeControlPlane cp = new KubeControlPlane(dir, token, api);
    try {
      writeFiles(dir, token, api);
      cp.spawn(
          "etcd",
          List.of(
              bin.resolve("etcd").toString(),
              "--name=default",
              "--data-dir=" + dir.resolve("etcd"),
              "--listen-client-urls=http://127.0.0.1:" + etcdClient,
              "--advertise-client-urls=http://127.0.0.1:" + etcdClient,
              "--listen-peer-urls=http://127.0.0.1:" + etcdPeer,
              "--initial-advertise-peer-urls=http://127.0.0.1:" + etcdPeer,
              "--initial-cluster=default=http://127.0.0.1:" + etcdPeer,
              "--unsafe-no-fsync=true",
              "--log-level=warn"));
      cp.spawn(
          "kube-apiserver",
          List.of(
              bin.resolve("kube-apiserver").toString(),
              "--etcd-servers=http://127.0.0.1:" + etcdClient,
              "--bind-address=127.0.0.1",
              "--advertise-address=127.0.0.1",
              "--secure-port=" + api,
              "--cert-dir=" + dir.resolve("certs"),
              "--token-auth-file=" + dir.resolve("tokens.csv"),
              "--authorization-mode=RBAC",
              // Off by default upstream, on in OpenShift and other hardened clusters: an owner
              // reference with blockOwnerDeletion needs the update of the owner's finalizers.
              "--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
              "--service-cluster-ip-range=10.0.0.0/24",
              "--service-account-issuer=https://kubernetes.default.svc",
              "--service-account-key-file=" + dir.resolve("sa.key"),
              "--service-account-signing-key-file=" + dir.resolve("sa.key"),
              "--allow-privileged=true",
              "--audit-policy-file=" + dir.resolve("audit-policy.yaml"),
              "--audit-log-path=" + dir.resolve("audit.log"),
              "--audit-log-mode=blocking",
              "--v=1"));
      cp.awaitReady();
      cp.spawn(
          "kube-controller-manager",
          List.of(
              bin.resolve("kube-controller-manager").toString(),
              "--kubeconfig=" + dir.resolve("admin.kubeconfig"),
              "--controllers=garbagecollector",
              "--leader-elect=false",
              "--secure-port=0",
              "--use-service-account-credentials=false",
              "--concurrent-gc-syncs=5",
              "--v=1"));
      return cp;
    } catch (RuntimeException | Error e) {
      String logs = cp.logs();
      cp.close();
      throw new AssertionError("the Kubernetes control plane did not start: " + e + "\n" + logs, e);
    }
  }

  private void spawn(String name, List<String> command) {
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve(name + ".log").toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      processes.add(p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
  }

  private void awaitReady() {
    HttpClient http = HttpClient.newBuilder().sslContext(trustAll()).build();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create(url() + "/readyz"))
            .header("Authorization", "Bearer " + adminToken)
            .timeout(Duration.ofSeconds(5))
            .build();
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    String last = "no answer";
    while (Instant.now().isBefore(deadline)) {
      for (Process p : processes) {
        if (!p.isAlive()) {
          throw new IllegalStateException("a component exited with " + p.exitValue());
        }
      }
      try {
        HttpResponse<String> r = http.send(readyz, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
        last = r.statusCode() + " " + r.body();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      sleep(250);
    }
    throw new IllegalStateException("kube-apiserver not ready in " + START_TIMEOUT + ": " + last);
  }

  private static void writeFiles(Path dir, String token, int api) {
    try {
      Files.writeString(
          dir.resolve("tokens.csv"), token + ",infera-admin,infera-admin,\"system:masters\"\n");
      KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
      gen.initialize(2048, new SecureRandom());
      KeyPair kp = gen.generateKeyPair();
      Files.writeString(
          dir.resolve("sa.key"),
          "-----BEGIN PRIVATE KEY-----\n"
              + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                  .encodeToString(kp.getPrivate().getEncoded())
              + "\n-----END PRIVATE KEY-----\n");
      // Writes only: the request-count assertions read them; reads would only slow the server.
      Files.writeString(
          dir.resolve("audit-policy.yaml"),
          """
          apiVersion: audit.k8s.io/v1
          kind: Policy
          omitStages: ["RequestReceived", "ResponseStarted"]
          rules:
          - level: Metadata
            verbs: ["create", "update", "patch", "delete", "deletecollection"]
          - level: None
          """);
      Files.writeString(
          dir.resolve("admin.kubeconfig"),
          """
          apiVersion: v1
          kind: Config
          clusters:
          - name: infera-test
            cluster:
              server: https://127.0.0.1:%d
              insecure-skip-tls-verify: true
          users:
          - name: infera-admin
            user:
              token: %s
          contexts:
          - name: infera-test
            context:
              cluster: infera-test
              user: infera-admin
          current-context: infera-test
          """
              .formatted(api, token));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static SSLContext trustAll() {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(
          null,
          new TrustManager[] {
            new X509TrustManager() {
              @Override
              public void checkClientTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkServerTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
              }
            }
          },
          new SecureRandom());
      return ctx;
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())) + "\n";
    } catch (IOException e) {
      return "(no log)\n";
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // Best effort: a temporary directory.
    }
  }
}
