package io.infera.sim.bench.peer;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Installs a peer's pinned release from PyPI into a virtualenv of its own under the cache directory
 * ({@code ~/.cache/infera/peers/<requirement>/}, or {@code $INFERA_CACHE/peers/…}), once; later
 * runs reuse it. A failure names the command and the end of what pip printed.
 */
public final class PeerInstall {

  private static final long INSTALL_MINUTES = 15;

  private PeerInstall() {}

  /** The cache root: {@code $INFERA_CACHE}, or {@code ~/.cache/infera}. */
  public static Path cacheRoot() {
    String env = System.getenv("INFERA_CACHE");
    return env != null && !env.isBlank()
        ? Path.of(env)
        : Path.of(System.getProperty("user.home"), ".cache", "infera");
  }

  /**
   * The virtualenv's {@code bin} directory with {@code peer} installed.
   *
   * @param progress told what is being installed (one line per step), or null
   */
  public static Path ensure(Peer peer, PrintWriter progress) throws PeerUnavailable {
    String why = peer.unsupportedReason();
    if (why != null) {
      throw new PeerUnavailable(why);
    }
    if (peer == Peer.INFERA) {
      return Path.of(System.getProperty("java.home"), "bin"); // this build: nothing to install
    }
    Path venv = cacheRoot().resolve("peers").resolve(peer.requirement().replace("==", "-"));
    Path bin = venv.resolve("bin");
    if (Files.isExecutable(bin.resolve(peer.executable()))) {
      return bin;
    }
    try {
      Files.createDirectories(venv.getParent());
    } catch (IOException e) {
      throw new PeerUnavailable("cannot create " + venv.getParent() + ": " + e.getMessage());
    }
    say(progress, "installing " + peer.requirement() + " into " + venv + " (once)");
    run(List.of(python(), "-m", "venv", venv.toString()), venv.resolveSibling("venv.log"));
    run(
        List.of(bin.resolve("pip").toString(), "install", "--quiet", peer.requirement()),
        venv.resolve("pip.log"));
    if (!Files.isExecutable(bin.resolve(peer.executable()))) {
      throw new PeerUnavailable(
          peer.requirement() + " installed, but it has no " + bin.resolve(peer.executable()));
    }
    return bin;
  }

  private static String python() throws PeerUnavailable {
    for (String p : List.of("python3.11", "python3")) {
      for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
        if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, p))) {
          return Path.of(dir, p).toString();
        }
      }
    }
    throw new PeerUnavailable("no python3 on PATH: install Python 3.11 with venv and pip");
  }

  private static void run(List<String> cmd, Path log) throws PeerUnavailable {
    try {
      Process p =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (!p.waitFor(INSTALL_MINUTES, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new PeerUnavailable(
            String.join(" ", cmd) + " did not finish in " + INSTALL_MINUTES + " minutes");
      }
      if (p.exitValue() != 0) {
        throw new PeerUnavailable(
            String.join(" ", cmd) + " failed (exit " + p.exitValue() + "): " + tail(log));
      }
    } catch (IOException e) {
      throw new PeerUnavailable("cannot run " + cmd.get(0) + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PeerUnavailable("interrupted while installing");
    }
  }

  /** The last lines of a log, for an error message. */
  static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static void say(PrintWriter progress, String line) {
    if (progress != null) {
      progress.println(line);
      progress.flush();
    }
  }
}
