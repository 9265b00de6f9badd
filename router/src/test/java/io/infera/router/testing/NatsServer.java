package io.infera.router.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code nats-server} with JetStream for tests, on a free loopback port with its own store
 * directory. When the binary is missing and we run as root (CI), it is installed with {@code
 * apt-get install -y nats-server}; otherwise the test stops with what to install.
 */
public final class NatsServer implements AutoCloseable {

  private static final String INSTALL_HINT =
      "nats-server not found: install it with 'apt-get install nats-server' (Debian/Ubuntu)";

  private final Path binary;
  private final Path storeDir;
  private final Path logFile;
  private final int port;
  private final List<String> extraArgs;
  private final Map<String, String> env;
  private Process process;

  private NatsServer(
      Path binary, Path storeDir, int port, List<String> extraArgs, Map<String, String> env) {
    this.binary = binary;
    this.storeDir = storeDir;
    this.logFile = storeDir.resolve("nats-server.log");
    this.port = port;
    this.extraArgs = List.copyOf(extraArgs);
    this.env = Map.copyOf(env);
  }

  /** Starts a server with JetStream storing under {@code storeDir}. */
  public static NatsServer start(Path storeDir, String... extraArgs) throws Exception {
    return start(binary(), storeDir, Map.of(), extraArgs);
  }

  /**
   * Starts {@code binary} ({@link #binary()} or {@link #current()}) with JetStream storing under
   * {@code storeDir} and {@code env} added to its environment (the passwords a rendered {@code
   * nats.conf} names).
   */
  public static NatsServer start(
      Path binary, Path storeDir, Map<String, String> env, String... extraArgs) throws Exception {
    Files.createDirectories(storeDir);
    NatsServer s = new NatsServer(binary, storeDir, freePort(), List.of(extraArgs), env);
    s.startProcess();
    return s;
  }

  /** The server's log so far (permission violations are logged there). */
  public String log() throws IOException {
    return Files.exists(logFile) ? Files.readString(logFile) : "";
  }

  /**
   * A current {@code nats-server} (the Debian package is 2.9): built once from the Go module proxy
   * by {@code build/nats-server.sh} and cached under {@code ~/.cache/infera/nats-server/}.
   *
   * @throws org.opentest4j.TestAbortedException (a skip, loudly) only when there is no Go toolchain
   *     or the Go module proxy cannot be reached (exit codes 3 and 4)
   */
  public static synchronized Path current() throws Exception {
    if (current != null) {
      return current;
    }
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !Files.exists(root.resolve("build/nats-server.sh"))) {
      root = root.getParent();
    }
    if (root == null) {
      throw new IllegalStateException("build/nats-server.sh not found above " + Path.of(""));
    }
    Process p =
        new ProcessBuilder("bash", root.resolve("build/nats-server.sh").toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(p.getInputStream().readAllBytes()).strip();
    if (!p.waitFor(20, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("build/nats-server.sh did not finish in 20 minutes");
    }
    int code = p.exitValue();
    if (code == 3 || code == 4) {
      org.junit.jupiter.api.Assumptions.abort(
          "SKIPPED LOUDLY: no current nats-server: build/nats-server.sh exited "
              + code
              + (code == 3
                  ? " (no Go 1.26+ toolchain: install Go)"
                  : " (the Go module proxy is unreachable: set GOPROXY)"));
    }
    if (code != 0) {
      throw new IllegalStateException("build/nats-server.sh failed with exit code " + code);
    }
    String last = out.substring(out.lastIndexOf('\n') + 1);
    current = Path.of(last);
    return current;
  }

  private static Path current;

  public String url() {
    return "nats://127.0.0.1:" + port;
  }

  public int port() {
    return port;
  }

  public Path storeDir() {
    return storeDir;
  }

  public boolean running() {
    return process != null && process.isAlive();
  }

  /** SIGKILL: no flush, no goodbye; the store stays as it was. */
  public void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Starts again on the same port and store (after {@link #kill} or {@link #close}). */
  public void restart() throws Exception {
    if (running()) {
      throw new IllegalStateException("nats-server is still running");
    }
    startProcess();
  }

  /** SIGTERM, then SIGKILL after 5 s. */
  @Override
  public void close() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    }
  }

  private void startProcess() throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    cmd.addAll(
        List.of(
            "-a",
            "127.0.0.1",
            "-p",
            Integer.toString(port),
            "-js",
            "-sd",
            storeDir.resolve("js").toString(),
            "--http_port",
            "0"));
    cmd.addAll(extraArgs);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    process =
        pb.redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "nats-server exited with " + process.exitValue() + ": " + Files.readString(logFile));
      }
      if (Files.exists(logFile) && Files.readString(logFile).contains("Server is ready")) {
        if (accepts()) {
          return;
        }
      }
      Thread.sleep(20);
    }
    process.destroyForcibly();
    throw new IllegalStateException("nats-server not ready in 15 s: " + Files.readString(logFile));
  }

  private boolean accepts() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * The {@code nats-server} binary: from the usual places or the {@code PATH}, else installed with
   * apt-get when running as root (the e2e module's NATS pod uses it too).
   */
  public static synchronized Path binary() throws Exception {
    for (String dir : List.of("/usr/sbin", "/usr/bin", "/usr/local/bin")) {
      Path p = Path.of(dir, "nats-server");
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(":")) {
        Path p = Path.of(dir, "nats-server");
        if (Files.isExecutable(p)) {
          return p;
        }
      }
    }
    if (!"root".equals(System.getProperty("user.name"))) {
      throw new IllegalStateException(INSTALL_HINT);
    }
    Process apt =
        new ProcessBuilder("apt-get", "install", "-y", "-q", "nats-server")
            .redirectErrorStream(true)
            .start();
    String out = new String(apt.getInputStream().readAllBytes());
    if (!apt.waitFor(10, TimeUnit.MINUTES) || apt.exitValue() != 0) {
      // A fresh image may have no package lists yet.
      Process update = new ProcessBuilder("apt-get", "update", "-q").inheritIO().start();
      update.waitFor(10, TimeUnit.MINUTES);
      apt =
          new ProcessBuilder("apt-get", "install", "-y", "-q", "nats-server")
              .redirectErrorStream(true)
              .start();
      out = new String(apt.getInputStream().readAllBytes());
      if (!apt.waitFor(10, TimeUnit.MINUTES) || apt.exitValue() != 0) {
        throw new IllegalStateException(INSTALL_HINT + "; apt-get said: " + out);
      }
    }
    Path installed = Path.of("/usr/sbin/nats-server");
    if (!Files.isExecutable(installed)) {
      throw new IllegalStateException(INSTALL_HINT + " (apt-get ran but no /usr/sbin/nats-server)");
    }
    return installed;
  }
}
