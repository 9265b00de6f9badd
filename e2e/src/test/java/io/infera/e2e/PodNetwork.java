package io.infera.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One network namespace per pod on a bridge of this run, the way a CNI plugin wires pods: a veth
 * pair each, {@code eth0} inside with the pod's address, a default route via the bridge (the host
 * reaches every pod through it). Names carry this JVM's pid, so a later run removes what a killed
 * run left behind, and concurrent runs never touch each other's.
 */
final class PodNetwork implements AutoCloseable {

  private static final String NETNS_PREFIX = "infera-e2e-";
  private static final Pattern NETNS = Pattern.compile("infera-e2e-(\\d+)-.*");
  private static final Pattern LINK = Pattern.compile("ie(\\d+)(?:[hp]\\d+)?");

  private final long pid = ProcessHandle.current().pid();
  private final String bridge = "ie" + pid;
  private final String subnet;
  private final Map<String, String> addresses = new LinkedHashMap<>();
  private final List<String> namespaces = new ArrayList<>();
  private final List<String> hostLinks = new ArrayList<>();

  PodNetwork() {
    removeLeftovers();
    subnet = freeSubnet();
    Cmd.run("ip", "link", "add", bridge, "type", "bridge");
    Cmd.run("ip", "addr", "add", hostAddress() + "/24", "dev", bridge);
    Cmd.run("ip", "link", "set", bridge, "up");
  }

  /** The host's address on the bridge (the pods' gateway; the test's requests come from it). */
  String hostAddress() {
    return subnet + ".1";
  }

  /** Adds a pod's namespace with the next address; returns the namespace's name. */
  String add(String pod) {
    int n = addresses.size();
    String ns = NETNS_PREFIX + pid + "-" + pod;
    String ip = subnet + "." + (n + 2);
    String host = "ie" + pid + "h" + n;
    String peer = "ie" + pid + "p" + n;
    namespaces.add(ns);
    Cmd.run("ip", "netns", "add", ns);
    Cmd.run("ip", "link", "add", host, "type", "veth", "peer", "name", peer);
    hostLinks.add(host);
    Cmd.run("ip", "link", "set", peer, "netns", ns);
    Cmd.run("ip", "link", "set", host, "master", bridge, "up");
    Cmd.run("ip", "-n", ns, "link", "set", peer, "name", "eth0");
    Cmd.run("ip", "-n", ns, "addr", "add", ip + "/24", "dev", "eth0");
    Cmd.run("ip", "-n", ns, "link", "set", "eth0", "up");
    Cmd.run("ip", "-n", ns, "link", "set", "lo", "up");
    Cmd.run("ip", "-n", ns, "route", "add", "default", "via", hostAddress());
    addresses.put(pod, ip);
    return ns;
  }

  /** The pod's address ({@code status.podIP}). */
  String address(String pod) {
    String ip = addresses.get(pod);
    if (ip == null) {
      throw new IllegalArgumentException("no pod " + pod + " on this network");
    }
    return ip;
  }

  /** Removes the namespaces (their veths go with them) and the bridge; safe to call twice. */
  @Override
  public void close() {
    for (String ns : namespaces) {
      delete(ns);
    }
    namespaces.clear();
    // A pair goes with either end: without this, a namespace the kernel frees late (sockets in
    // TIME_WAIT) would leave its veth on the host for a while.
    for (String link : hostLinks) {
      Cmd.tryRun("ip", "link", "del", link);
    }
    hostLinks.clear();
    Cmd.tryRun("ip", "link", "del", bridge);
  }

  /** Whether this machine lets us make network namespaces (root and {@code ip netns}). */
  static String unsupportedReason() {
    String probe = NETNS_PREFIX + ProcessHandle.current().pid() + "-probe";
    Cmd.Result add = Cmd.tryRun("ip", "netns", "add", probe);
    if (add.code() != 0) {
      return "'ip netns add' failed: " + add.out();
    }
    Cmd.Result exec = Cmd.tryRun("ip", "netns", "exec", probe, "ip", "link", "show", "lo");
    Cmd.tryRun("ip", "netns", "del", probe);
    return exec.code() == 0 ? null : "'ip netns exec' failed: " + exec.out();
  }

  private static void removeLeftovers() {
    for (String line : Cmd.tryRun("ip", "netns", "list").out().split("\n")) {
      String name = line.strip().split("\\s+")[0];
      Matcher m = NETNS.matcher(name);
      if (m.matches() && !alive(m.group(1))) {
        delete(name);
      }
    }
    for (String line : Cmd.tryRun("ip", "-o", "link", "show").out().split("\n")) {
      String[] f = line.split(":\\s+");
      if (f.length < 2) {
        continue;
      }
      String name = f[1].split("@")[0].strip();
      Matcher m = LINK.matcher(name);
      if (m.matches() && !alive(m.group(1))) {
        Cmd.tryRun("ip", "link", "del", name);
      }
    }
  }

  /** Kills whatever still runs in the namespace (every container of its pod), then removes it. */
  private static void delete(String ns) {
    for (int attempt = 0; attempt < 50; attempt++) {
      String pids = Cmd.tryRun("ip", "netns", "pids", ns).out();
      if (pids.isBlank() || !pids.chars().allMatch(c -> Character.isDigit(c) || c == '\n')) {
        break;
      }
      for (String pid : pids.split("\n")) {
        Cmd.tryRun("kill", "-9", pid.strip());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    Cmd.tryRun("ip", "netns", "del", ns);
  }

  private static boolean alive(String pid) {
    return Files.exists(Path.of("/proc", pid));
  }

  private static String freeSubnet() {
    String routes = Cmd.run("ip", "-4", "route", "show", "table", "all");
    for (int attempt = 0; attempt < 200; attempt++) {
      String candidate = "10.213." + ThreadLocalRandom.current().nextInt(1, 255);
      if (!routes.contains(candidate + ".")) {
        return candidate;
      }
    }
    throw new IllegalStateException("no free 10.213.x.0/24 subnet for the pods: " + routes);
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    // Mounts live in the containers' mount namespaces, gone with their processes: a plain rm.
    Cmd.Result r = Cmd.tryRun("rm", "-rf", "--one-file-system", dir.toString());
    if (r.code() != 0) {
      throw new IllegalStateException("cannot remove " + dir + ": " + r.out());
    }
  }

  static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
