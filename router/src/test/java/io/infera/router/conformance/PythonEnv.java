package io.infera.router.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The Python side of the conformance suite, made once per JVM with {@code build/python-env.sh}: the
 * pinned engine wheels (build/engines.properties) and a virtualenv with what their publisher
 * modules import. The script's exit codes 3 (a toolchain is missing) and 4 (no package index) abort
 * the calling test with the script's own message; any other failure fails it.
 */
final class PythonEnv {

  /** The virtualenv's python, the driver script and the wheel per engine. */
  record Env(Path python, Path driver, Path vllmWheel, Path sglangWheel) {
    Path wheel(String engine) {
      return engine.equals("vllm") ? vllmWheel : sglangWheel;
    }
  }

  private static Env env;
  private static String skip;

  private PythonEnv() {}

  /** The environment, built on first use; aborts the test (assumption) on exit codes 3 and 4. */
  static synchronized Env get() {
    if (skip != null) {
      Assumptions.abort(skip);
    }
    if (env == null) {
      try {
        env = build();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    return env;
  }

  private static Env build() throws IOException, InterruptedException {
    Path root = repositoryRoot();
    Path script = root.resolve("build/python-env.sh");
    Properties pins = new Properties();
    try (var in = Files.newBufferedReader(root.resolve("build/engines.properties"))) {
      pins.load(in);
    }
    Path resources = resource("conformance/requirements.txt").getParent();
    Path python =
        Paths.get(
            run(
                root,
                List.of(
                    script.toString(),
                    "venv",
                    "conformance",
                    resources.resolve("requirements.txt").toString())));
    Path vllm =
        Paths.get(
            run(root, List.of(script.toString(), "wheel", "vllm==" + pins.getProperty("vllm"))));
    Path sglang =
        Paths.get(
            run(
                root,
                List.of(script.toString(), "wheel", "sglang==" + pins.getProperty("sglang"))));
    return new Env(python, resources.resolve("engine_driver.py"), vllm, sglang);
  }

  /** Runs the script; returns the last line of its stdout. */
  private static String run(Path root, List<String> cmd) throws IOException, InterruptedException {
    Path err = Files.createTempFile("python-env", ".err");
    try {
      Process p =
          new ProcessBuilder(new ArrayList<>(cmd))
              .directory(root.toFile())
              .redirectError(err.toFile())
              .start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(30, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", cmd) + " did not finish in 30 minutes");
      }
      String stderr = Files.readString(err, StandardCharsets.UTF_8).strip();
      if (!stderr.isEmpty()) {
        System.err.println(stderr); // "downloading ... (one time)" and the like
      }
      int rc = p.exitValue();
      if (rc == 3 || rc == 4) {
        skip =
            "conformance suite SKIPPED: " + String.join(" ", cmd) + " exited " + rc + ": " + stderr;
        System.err.println("*** " + skip);
        Assumptions.abort(skip);
      }
      if (rc != 0) {
        throw new AssertionError(String.join(" ", cmd) + " exited " + rc + ":\n" + stderr);
      }
      String[] lines = out.strip().split("\n");
      return lines[lines.length - 1].strip();
    } finally {
      Files.deleteIfExists(err);
    }
  }

  private static Path resource(String name) {
    try {
      return Paths.get(PythonEnv.class.getClassLoader().getResource(name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path repositoryRoot() {
    Path dir = Paths.get("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("build/python-env.sh"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new AssertionError("no build/python-env.sh above " + Paths.get("").toAbsolutePath());
    }
    return dir;
  }
}
