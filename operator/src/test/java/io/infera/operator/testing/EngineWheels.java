package io.infera.operator.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The pinned engine wheels ({@code build/engines.properties}, fetched by {@code build/python-env.sh
 * wheel}) and the facts {@code engine-facts.py} reads from their own source. A missing toolchain
 * (exit 3) or an unreachable package index (exit 4) skips the test, loudly; any other failure fails
 * it.
 */
public final class EngineWheels {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long TIMEOUT_MINUTES = 10;

  private EngineWheels() {}

  /** {@code build/engines.properties}: engine name to pinned release. */
  public static Properties releases() {
    Properties p = new Properties();
    try (InputStream in =
        Files.newInputStream(Fixtures.repoRoot().resolve("build/engines.properties"))) {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p;
  }

  /** The path of the pinned wheel of {@code engine} ({@code vllm} or {@code sglang}). */
  public static Path wheel(String engine) {
    String spec = engine + "==" + releases().getProperty(engine).strip();
    Path script = Fixtures.repoRoot().resolve("build/python-env.sh");
    List<String> out = run(List.of("bash", script.toString(), "wheel", spec));
    return Path.of(out.get(out.size() - 1).strip());
  }

  /** The output of {@code engine-facts.py ARGS...} as JSON. */
  public static JsonNode facts(String... args) {
    Path script = Fixtures.moduleDir().resolve("src/test/resources/engine-facts.py");
    String python = System.getenv().getOrDefault("INFERA_PYTHON", "python3");
    List<String> cmd = new ArrayList<>(List.of(python, script.toString()));
    cmd.addAll(List.of(args));
    List<String> out = run(cmd);
    try {
      return JSON.readTree(out.get(out.size() - 1));
    } catch (IOException e) {
      throw new AssertionError("engine-facts.py printed no JSON: " + out, e);
    }
  }

  private static List<String> run(List<String> cmd) {
    Path err;
    try {
      err = Files.createTempFile("engine-wheels", ".err");
      Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
      p.getOutputStream().close();
      byte[] stdout = p.getInputStream().readAllBytes();
      if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError(cmd + " did not finish in " + TIMEOUT_MINUTES + " minutes");
      }
      String stderr = Files.readString(err, StandardCharsets.UTF_8).strip();
      Files.deleteIfExists(err);
      int rc = p.exitValue();
      if (rc == 3 || rc == 4) {
        System.err.println("SKIPPED (engine wheels): " + stderr);
        Assumptions.abort("engine wheels unavailable (exit " + rc + "): " + stderr);
      }
      if (rc != 0) {
        throw new AssertionError(cmd + " exited " + rc + ": " + stderr);
      }
      List<String> lines =
          new String(stdout, StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
      if (lines.isEmpty()) {
        throw new AssertionError(cmd + " printed nothing: " + stderr);
      }
      return lines;
    } catch (IOException e) {
      // No bash or no python3 on the PATH: the same as a missing toolchain.
      Assumptions.abort("cannot run " + cmd.get(0) + ": " + e.getMessage());
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
