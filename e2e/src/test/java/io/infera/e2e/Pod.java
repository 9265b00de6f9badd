package io.infera.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceFieldSelector;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * One pod of a rendered workload, run the way the kubelet and a container runtime would run it on a
 * node: each container from its image's unpacked layers (read-only when {@code
 * readOnlyRootFilesystem} says so), with exactly the pod's volumes mounted (emptyDir and claims: a
 * fresh directory; configMap: the rendered ConfigMap's files, read-only), as the user and groups
 * its security contexts give, with the rendered command, args and env ({@code $(VAR)} and {@code
 * fieldRef} resolved), in the pod's network namespace, with the kubelet's /etc/hosts.
 *
 * <p>Not modelled: resource limits (no cgroups), probes restarting a container (a failed probe
 * fails the test instead), the service-account token mount, seccomp profiles.
 */
final class Pod implements AutoCloseable {

  /** Everything about the pod that is not in its spec. */
  record Placement(
      String name,
      String hostname,
      String subdomain,
      String namespace,
      String netns,
      String ip,
      String hostIp,
      String hosts,
      ObjectMeta templateMeta) {}

  /** A container process and its log. */
  record Running(String name, Container spec, Process process, Path log) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Placement at;
  private final PodSpec spec;
  private final Path dir;
  private final Path logs;
  private final Map<String, Path> volumes = new LinkedHashMap<>();
  private final Map<String, Secret> secrets;
  private final List<Running> running = new ArrayList<>();
  private final String uid = UUID.randomUUID().toString();

  /**
   * Prepares the pod's volumes under {@code dir}.
   *
   * @param configMaps the rendered ConfigMaps by name
   * @param secrets the Secrets the operator would have generated, by name
   * @param claims the StatefulSet's volumeClaimTemplates (each a fresh directory, like a new PV)
   * @param logs where each container's output goes ({@code <pod>-<container>.log}), kept after the
   *     run
   */
  Pod(
      Placement at,
      PodSpec spec,
      Map<String, ConfigMap> configMaps,
      Map<String, Secret> secrets,
      Set<String> claims,
      Path dir,
      Path logs) {
    this.at = at;
    this.logs = logs;
    mkdirs(logs);
    this.spec = spec;
    this.dir = dir;
    this.secrets = secrets;
    Long fsGroup = podSecurity().getFsGroup();
    for (Volume v : spec.getVolumes()) {
      Path d = dir.resolve("volumes").resolve(v.getName());
      mkdirs(d);
      if (v.getEmptyDir() != null) {
        // The kubelet makes emptyDir world-writable; fsGroup owns it, setgid.
        ownership(d, fsGroup, fsGroup == null ? "0777" : "2777");
      } else if (v.getConfigMap() != null) {
        writeConfigMap(v, configMaps, d, fsGroup);
      } else if (v.getSecret() != null) {
        writeSecret(v, d, fsGroup);
      } else {
        throw new IllegalArgumentException(
            "pod " + at.name() + ": volume " + v.getName() + " of a kind this runner has not got");
      }
      volumes.put(v.getName(), d);
    }
    for (String claim : claims) {
      Path d = dir.resolve("volumes").resolve(claim);
      mkdirs(d);
      // A fresh volume, group-owned by fsGroup as the kubelet makes it.
      ownership(d, fsGroup, fsGroup == null ? "0755" : "2775");
      volumes.put(claim, d);
    }
    PodNetwork.write(dir.resolve("etc/hosts"), at.hosts());
    PodNetwork.write(dir.resolve("etc/hostname"), at.hostname() + "\n");
    PodNetwork.write(
        dir.resolve("etc/resolv.conf"),
        // Nothing answers on the pod's own loopback: lookups fall through to /etc/hosts, which
        // holds the Services' names (cluster DNS stand-in).
        "search "
            + at.namespace()
            + ".svc.cluster.local svc.cluster.local cluster.local\nnameserver 127.0.0.1\n"
            + "options ndots:5\n");
  }

  String name() {
    return at.name();
  }

  /** Starts every container of the pod (init containers are not used by the rendered pods). */
  void start(Function<String, Image> images, Path runner) {
    if (spec.getInitContainers() != null && !spec.getInitContainers().isEmpty()) {
      throw new IllegalArgumentException("pod " + at.name() + ": init containers not supported");
    }
    for (Container c : spec.getContainers()) {
      Image image = images.apply(c.getImage());
      Path bundle = dir.resolve("containers").resolve(c.getName());
      mkdirs(bundle);
      Path specFile = bundle.resolve("spec.json");
      Path log = logs.resolve(at.name() + "-" + c.getName() + ".log");
      try {
        JSON.writerWithDefaultPrettyPrinter()
            .writeValue(specFile.toFile(), containerSpec(c, image, bundle));
        Process p =
            new ProcessBuilder(
                    "ip",
                    "netns",
                    "exec",
                    at.netns(),
                    "unshare",
                    "--mount",
                    "--uts",
                    "--pid",
                    "--fork",
                    "--kill-child",
                    "--propagation",
                    "private",
                    python(),
                    runner.toString(),
                    "container",
                    specFile.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        p.getOutputStream().close();
        running.add(new Running(c.getName(), c, p, log));
      } catch (IOException e) {
        throw new IllegalStateException("cannot start " + at.name() + "/" + c.getName(), e);
      }
    }
  }

  /**
   * Waits until every container passes its readiness probe (or, without one, its startup or
   * liveness probe), from the host as the kubelet probes: the pod's address and the probe's port.
   * Throws with {@link #diagnosis()} when a container exits or the time is up.
   */
  void awaitReady(Duration atLeast) throws InterruptedException {
    for (Running r : running) {
      Probe probe = firstNonNull(r.spec().getReadinessProbe(), r.spec().getStartupProbe());
      probe = firstNonNull(probe, r.spec().getLivenessProbe());
      if (probe == null || probe.getHttpGet() == null) {
        continue;
      }
      Probe startup = r.spec().getStartupProbe();
      long budgetMs =
          startup == null ? 0 : 1000L * startup.getPeriodSeconds() * startup.getFailureThreshold();
      long deadline = System.currentTimeMillis() + Math.max(budgetMs, atLeast.toMillis());
      URI uri = probeUri(r.spec(), probe.getHttpGet());
      while (!ok(uri)) {
        if (!r.process().isAlive()) {
          throw new IllegalStateException(
              at.name() + "/" + r.name() + " exited before it was ready\n" + diagnosis());
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IllegalStateException(
              at.name() + "/" + r.name() + ": " + uri + " not ready in time\n" + diagnosis());
        }
        Thread.sleep(250);
      }
    }
  }

  /** Throws with {@link #diagnosis()} unless every container is still running. */
  void assertRunning() {
    for (Running r : running) {
      if (!r.process().isAlive()) {
        throw new IllegalStateException(at.name() + "/" + r.name() + " exited\n" + diagnosis());
      }
    }
  }

  /** Each container's state and the tail of its log. */
  String diagnosis() {
    StringBuilder sb = new StringBuilder();
    for (Running r : running) {
      String state = r.process().isAlive() ? "running" : "exited with " + r.process().exitValue();
      sb.append("--- ")
          .append(at.name())
          .append('/')
          .append(r.name())
          .append(" (")
          .append(state)
          .append("), last lines of its log:\n")
          .append(tail(r.log(), 40))
          .append('\n');
    }
    return sb.toString();
  }

  /** Kills every container (its pid namespace goes with it, and its mounts with that). */
  @Override
  public void close() {
    for (Running r : running) {
      // The container (pid 1 of its pid namespace) first: killing it ends the namespace.
      r.process().descendants().forEach(ProcessHandle::destroyForcibly);
      r.process().destroyForcibly();
    }
    for (Running r : running) {
      try {
        r.process().waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // --- the container spec for build/run-image.py -------------------------------------------------

  private Map<String, Object> containerSpec(Container c, Image image, Path bundle) {
    SecurityContext sc =
        c.getSecurityContext() != null ? c.getSecurityContext() : new SecurityContext();
    PodSecurityContext psc = podSecurity();
    String[] imageUser = image.user().isEmpty() ? new String[] {"0"} : image.user().split(":", 2);
    long uidValue =
        firstNonNull(sc.getRunAsUser(), psc.getRunAsUser(), numericUser(imageUser[0], image));
    Long imageGid = imageUser.length > 1 ? Long.valueOf(imageUser[1]) : null;
    long gid = firstNonNull(sc.getRunAsGroup(), psc.getRunAsGroup(), imageGid, 0L);
    boolean nonRoot =
        Boolean.TRUE.equals(firstNonNull(sc.getRunAsNonRoot(), psc.getRunAsNonRoot()));
    if (nonRoot && uidValue == 0) {
      // The kubelet refuses to start it: CreateContainerConfigError.
      throw new IllegalStateException(
          at.name() + "/" + c.getName() + ": runAsNonRoot, but the image runs as root");
    }
    List<Long> groups = new ArrayList<>();
    if (psc.getFsGroup() != null) {
      groups.add(psc.getFsGroup());
    }
    if (psc.getSupplementalGroups() != null) {
      groups.addAll(psc.getSupplementalGroups());
    }

    Map<String, String> podEnv = containerEnv(c);
    Map<String, String> env = new LinkedHashMap<>();
    for (String e : image.env()) {
      int eq = e.indexOf('=');
      env.put(e.substring(0, eq), e.substring(eq + 1));
    }
    env.put("HOSTNAME", at.hostname());
    env.putAll(podEnv);

    List<String> command =
        c.getCommand() == null || c.getCommand().isEmpty() ? null : c.getCommand();
    List<String> args = c.getArgs() == null || c.getArgs().isEmpty() ? null : c.getArgs();
    List<String> argv = new ArrayList<>();
    if (command != null) {
      command.forEach(s -> argv.add(KubeletExpansion.expand(s, podEnv)));
      if (args != null) {
        args.forEach(s -> argv.add(KubeletExpansion.expand(s, podEnv)));
      }
    } else {
      argv.addAll(image.entrypoint());
      if (args != null) {
        args.forEach(s -> argv.add(KubeletExpansion.expand(s, podEnv)));
      } else {
        argv.addAll(image.cmd());
      }
    }
    if (argv.isEmpty()) {
      throw new IllegalStateException(at.name() + "/" + c.getName() + ": nothing to run");
    }

    List<Map<String, Object>> mounts = new ArrayList<>();
    Set<String> targets = new java.util.HashSet<>();
    for (VolumeMount m : c.getVolumeMounts()) {
      Path source = volumes.get(m.getName());
      if (source == null) {
        throw new IllegalStateException(
            at.name() + "/" + c.getName() + ": volumeMount " + m.getName() + " has no volume");
      }
      if (m.getSubPath() != null && !m.getSubPath().isEmpty()) {
        source = source.resolve(m.getSubPath());
      }
      boolean configMap =
          spec.getVolumes().stream()
              .anyMatch(v -> v.getName().equals(m.getName()) && v.getConfigMap() != null);
      mounts.add(
          Map.of(
              "source",
              source.toString(),
              "target",
              m.getMountPath(),
              // configMap volumes are always mounted read-only by the kubelet.
              "readOnly",
              configMap || Boolean.TRUE.equals(m.getReadOnly())));
      targets.add(m.getMountPath());
    }
    for (String f : List.of("/etc/hosts", "/etc/hostname", "/etc/resolv.conf")) {
      if (!targets.contains(f)) {
        mounts.add(
            Map.of(
                "source", dir.resolve(f.substring(1)).toString(), "target", f, "readOnly", false));
      }
    }

    Map<String, Object> out = new LinkedHashMap<>();
    out.put("rootfs", image.rootfs().toString());
    out.put("bundle", bundle.toString());
    out.put("readOnlyRoot", Boolean.TRUE.equals(sc.getReadOnlyRootFilesystem()));
    out.put("mounts", mounts);
    out.put("hostname", at.hostname());
    out.put("uid", uidValue);
    out.put("gid", gid);
    out.put("groups", groups);
    out.put("noNewPrivileges", Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation()));
    out.put(
        "dropAllCapabilities",
        sc.getCapabilities() != null
            && sc.getCapabilities().getDrop() != null
            && sc.getCapabilities().getDrop().contains("ALL"));
    out.put(
        "workingDir",
        c.getWorkingDir() != null && !c.getWorkingDir().isEmpty()
            ? c.getWorkingDir()
            : image.workingDir().isEmpty() ? "/" : image.workingDir());
    List<String> envList = new ArrayList<>();
    env.forEach((k, v) -> envList.add(k + "=" + v));
    out.put("env", envList);
    out.put("argv", argv);
    return out;
  }

  /**
   * The container's env as the kubelet builds it: in order, each value expanded over the ones
   * before.
   */
  private Map<String, String> containerEnv(Container c) {
    Map<String, String> env = new LinkedHashMap<>();
    if (c.getEnvFrom() != null && !c.getEnvFrom().isEmpty()) {
      throw new IllegalArgumentException(at.name() + "/" + c.getName() + ": envFrom not supported");
    }
    for (EnvVar e : c.getEnv()) {
      String value;
      if (e.getValueFrom() != null) {
        value = valueFrom(c, e.getName(), e.getValueFrom());
      } else {
        value = KubeletExpansion.expand(Objects.requireNonNullElse(e.getValue(), ""), env);
      }
      env.put(e.getName(), value);
    }
    return env;
  }

  private String valueFrom(Container c, String name, EnvVarSource from) {
    if (from.getFieldRef() != null) {
      String path = from.getFieldRef().getFieldPath();
      return switch (path) {
        case "metadata.name" -> at.name();
        case "metadata.namespace" -> at.namespace();
        case "metadata.uid" -> uid;
        case "spec.nodeName" -> "e2e-node";
        case "spec.serviceAccountName" ->
            Objects.requireNonNullElse(spec.getServiceAccountName(), "default");
        case "status.podIP", "status.podIPs" -> at.ip();
        case "status.hostIP", "status.hostIPs" -> at.hostIp();
        default -> label(path);
      };
    }
    if (from.getResourceFieldRef() != null) {
      return resource(c, from.getResourceFieldRef());
    }
    if (from.getSecretKeyRef() != null) {
      return secretValue(from.getSecretKeyRef().getName(), from.getSecretKeyRef().getKey());
    }
    throw new IllegalArgumentException(
        at.name()
            + "/"
            + c.getName()
            + ": env "
            + name
            + ": only fieldRef, resourceFieldRef and secretKeyRef");
  }

  private String label(String path) {
    Map<String, String> source;
    String prefix;
    if (path.startsWith("metadata.labels['")) {
      source = at.templateMeta().getLabels();
      prefix = "metadata.labels['";
    } else if (path.startsWith("metadata.annotations['")) {
      source = at.templateMeta().getAnnotations();
      prefix = "metadata.annotations['";
    } else {
      throw new IllegalArgumentException(at.name() + ": fieldRef " + path + " not supported");
    }
    String key = path.substring(prefix.length(), path.length() - 2);
    return source == null ? "" : Objects.requireNonNullElse(source.get(key), "");
  }

  private static String resource(Container c, ResourceFieldSelector ref) {
    String[] kind = ref.getResource().split("\\.", 2);
    Map<String, Quantity> map =
        c.getResources() == null
            ? Map.of()
            : "limits".equals(kind[0])
                ? c.getResources().getLimits()
                : c.getResources().getRequests();
    Quantity q = map == null ? null : map.get(kind[1]);
    if (q == null) {
      throw new IllegalArgumentException(c.getName() + ": " + ref.getResource() + " is not set");
    }
    BigDecimal divisor =
        ref.getDivisor() == null ? BigDecimal.ONE : Quantity.getAmountInBytes(ref.getDivisor());
    return Quantity.getAmountInBytes(q).divide(divisor, 0, RoundingMode.CEILING).toPlainString();
  }

  private void writeConfigMap(Volume v, Map<String, ConfigMap> configMaps, Path d, Long fsGroup) {
    ConfigMap cm = configMaps.get(v.getConfigMap().getName());
    if (cm == null) {
      throw new IllegalStateException(
          "pod " + at.name() + ": ConfigMap " + v.getConfigMap().getName() + " was not rendered");
    }
    Map<String, String> data = cm.getData() == null ? Map.of() : cm.getData();
    List<KeyToPath> items = v.getConfigMap().getItems();
    Map<String, String> files = new LinkedHashMap<>();
    if (items == null || items.isEmpty()) {
      data.forEach(files::put);
    } else {
      for (KeyToPath item : items) {
        String value = data.get(item.getKey());
        if (value == null) {
          throw new IllegalStateException(
              "pod "
                  + at.name()
                  + ": ConfigMap "
                  + cm.getMetadata().getName()
                  + " has no key "
                  + item.getKey());
        }
        files.put(item.getPath(), value);
      }
    }
    int mode = v.getConfigMap().getDefaultMode() == null ? 0644 : v.getConfigMap().getDefaultMode();
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path file = d.resolve(f.getKey());
      PodNetwork.write(file, f.getValue());
      ownership(file, fsGroup, Integer.toOctalString(mode));
    }
    ownership(d, fsGroup, "0755");
  }

  /** A Secret's key, decoded, as the kubelet gives it to env and files. */
  private String secretValue(String secretName, String key) {
    Secret secret = secrets.get(secretName);
    if (secret == null) {
      throw new IllegalStateException("pod " + at.name() + ": Secret " + secretName + " not there");
    }
    String b64 = secret.getData() == null ? null : secret.getData().get(key);
    if (b64 == null) {
      throw new IllegalStateException(
          "pod " + at.name() + ": Secret " + secretName + " has no key " + key);
    }
    return new String(
        java.util.Base64.getDecoder().decode(b64), java.nio.charset.StandardCharsets.UTF_8);
  }

  private void writeSecret(Volume v, Path d, Long fsGroup) {
    String name = v.getSecret().getSecretName();
    Secret secret = secrets.get(name);
    if (secret == null) {
      throw new IllegalStateException("pod " + at.name() + ": Secret " + name + " not there");
    }
    Map<String, String> files = new LinkedHashMap<>();
    List<KeyToPath> items = v.getSecret().getItems();
    if (items == null || items.isEmpty()) {
      for (String key : secret.getData().keySet()) {
        files.put(key, secretValue(name, key));
      }
    } else {
      for (KeyToPath item : items) {
        files.put(item.getPath(), secretValue(name, item.getKey()));
      }
    }
    int mode = v.getSecret().getDefaultMode() == null ? 0644 : v.getSecret().getDefaultMode();
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path file = d.resolve(f.getKey());
      PodNetwork.write(file, f.getValue());
      ownership(file, fsGroup, Integer.toOctalString(mode));
    }
    ownership(d, fsGroup, "0755");
  }

  private URI probeUri(Container c, HTTPGetAction get) {
    IntOrString port = get.getPort();
    int number;
    if (port.getIntVal() != null) {
      number = port.getIntVal();
    } else {
      number =
          c.getPorts().stream()
              .filter(p -> port.getStrVal().equals(p.getName()))
              .map(ContainerPort::getContainerPort)
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          c.getName() + ": probe port " + port.getStrVal() + " is not declared"));
    }
    return URI.create("http://" + at.ip() + ":" + number + get.getPath());
  }

  private static boolean ok(URI uri) {
    try {
      HttpResponse<Void> r =
          HTTP.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
              HttpResponse.BodyHandlers.discarding());
      return r.statusCode() >= 200 && r.statusCode() < 400;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private PodSecurityContext podSecurity() {
    return spec.getSecurityContext() != null ? spec.getSecurityContext() : new PodSecurityContext();
  }

  private static long numericUser(String user, Image image) {
    if (user.chars().allMatch(Character::isDigit)) {
      return Long.parseLong(user);
    }
    try {
      for (String line : Files.readAllLines(image.rootfs().resolve("etc/passwd"))) {
        String[] f = line.split(":");
        if (f.length > 2 && f[0].equals(user)) {
          return Long.parseLong(f[2]);
        }
      }
    } catch (IOException e) {
      // falls through
    }
    throw new IllegalStateException(image.name() + ": user " + user + " not in its /etc/passwd");
  }

  private static void ownership(Path p, Long fsGroup, String mode) {
    if (fsGroup != null) {
      Cmd.run("chown", "0:" + fsGroup, p.toString());
    }
    Cmd.run("chmod", mode, p.toString());
  }

  private static void mkdirs(Path d) {
    try {
      Files.createDirectories(d);
    } catch (IOException e) {
      throw new IllegalStateException("cannot create " + d, e);
    }
  }

  /**
   * The log's first lines that look like an error (a stack trace's cause is what one needs) and its
   * last {@code lines} lines.
   */
  static String tail(Path log, int lines) {
    List<String> all;
    try {
      all = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
    List<String> errors =
        all.stream()
            .filter(
                l -> l.contains("ERROR") || l.contains("Exception") || l.startsWith("Caused by"))
            .filter(l -> !l.startsWith("\tat "))
            .limit(10)
            .toList();
    String last = String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    return errors.isEmpty() ? last : "(errors) " + String.join("\n(errors) ", errors) + "\n" + last;
  }

  /** The Python the runner runs on: Debian's when there, else the first on the PATH. */
  static String python() {
    return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
  }

  @SafeVarargs
  private static <T> T firstNonNull(T... values) {
    for (T v : values) {
      if (v != null) {
        return v;
      }
    }
    return null;
  }
}
