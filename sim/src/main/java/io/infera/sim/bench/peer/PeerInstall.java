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

  /** The file whose presence says the install finished (Dynamo runs as Python modules). */
  private static String executable(Peer peer) {
    return peer == Peer.DYNAMO ? "dynamo-installed" : peer.executable();
  }

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
    if (peer == Peer.INFERA) {
      return Path.of(System.getProperty("java.home"), "bin"); // this build: nothing to install
    }
    Path venv = cacheRoot().resolve("peers").resolve(peer.requirement().replace("==", "-"));
    Path bin = venv.resolve("bin");
    if (Files.isExecutable(bin.resolve(executable(peer)))) {
      return bin;
    }
    try {
      Files.createDirectories(venv.getParent());
    } catch (IOException e) {
      throw new PeerUnavailable("cannot create " + venv.getParent() + ": " + e.getMessage());
    }
    say(progress, "installing " + peer.requirement() + " into " + venv + " (once)");
    run(List.of(python(), "-m", "venv", venv.toString()), venv.resolveSibling("venv.log"));
    if (peer == Peer.DYNAMO) {
      installDynamo(bin, venv.resolve("pip.log"));
      try {
        Path marker = bin.resolve(executable(peer));
        Files.writeString(marker, "#!/bin/sh\n# " + peer.requirement() + " installed\n");
        marker.toFile().setExecutable(true);
      } catch (IOException e) {
        throw new PeerUnavailable("cannot mark " + venv + " installed: " + e.getMessage());
      }
    } else {
      run(
          List.of(bin.resolve("pip").toString(), "install", "--quiet", peer.requirement()),
          venv.resolve("pip.log"));
    }
    if (!Files.isExecutable(bin.resolve(executable(peer)))) {
      throw new PeerUnavailable(
          peer.requirement() + " installed, but it has no " + bin.resolve(executable(peer)));
    }
    return bin;
  }

  /**
   * Dynamo's frontend and mocker without {@code aisimulate}: ai-dynamo 1.6.1 requires it, but on
   * PyPI it is a placeholder whose build downloads the real wheel from pypi.nvidia.com, which this
   * machine cannot reach (pip fails with "cannot download the real wheel file"); the frontend and
   * the mocker run without it (the mocker's engine core is in ai-dynamo-runtime). So: the runtime,
   * ai-dynamo without its dependencies, then its other dependencies as its metadata lists them.
   */
  private static void installDynamo(Path bin, Path log) throws PeerUnavailable {
    String pip = bin.resolve("pip").toString();
    run(List.of(pip, "install", "--quiet", "ai-dynamo-runtime==1.6.1"), log);
    run(List.of(pip, "install", "--quiet", "--no-deps", "ai-dynamo==1.6.1"), log);
    run(
        List.of(
            pip,
            "install",
            "--quiet",
            "aiohttp>=3.14.3,<4.0",
            "certifi>=2026.10.19",
            "kubernetes>=32.0.1,<33.0.0",
            "msgspec>=0.19.0",
            "prometheus-client>=0.23.1,<1.0",
            "pyzmq>=26.0.0",
            "redis>=6.2.0,<9.0.0",
            "tqdm>=4.0.0",
            "transformers>=4.56.0",
            "typing-extensions>=4.10.0",
            "zstandard>=0.23.0,<1.0",
            "packaging",
            "numpy"),
        log);
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
