package io.infera.router.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The golden event fixtures are what make_fixtures.py writes, and its {@code vllm-0.33.0} and
 * {@code sglang-0.5.23} payloads are what the pinned engine wheels' own event classes encode: the
 * script is re-run (in a project-local virtualenv, with the wheels of build/engines.properties) and
 * every file compared byte for byte. Skipped, loudly, only when build/python-env.sh reports a
 * missing toolchain (exit 3) or an unreachable package index (exit 4).
 */
class UpstreamFixturesTest {

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void committedFixturesAreWhatTheScriptAndTheEngineWheelsWrite(@TempDir Path out)
      throws Exception {
    Path root = repositoryRoot();
    Path script = root.resolve("router/src/test/resources/golden/events");
    Path events = script;
    String python =
        env(root, "venv", "event-fixtures", script.resolve("requirements.txt").toString());
    String vllm = env(root, "wheel", "vllm==" + engine(root, "vllm"));
    String sglang = env(root, "wheel", "sglang==" + engine(root, "sglang"));
    Run r =
        run(
            root,
            python,
            script.resolve("make_fixtures.py").toString(),
            "--out",
            out.toString(),
            "--vllm-wheel",
            vllm,
            "--sglang-wheel",
            sglang);
    assertThat(r.code).as("make_fixtures.py failed:\n" + r.err).isZero();
    List<String> written = names(out);
    assertThat(written).contains("vllm-0.33.0.msgpack", "sglang-0.5.23.msgpack");
    assertThat(names(events).stream().filter(n -> !n.endsWith(".py") && !n.endsWith(".txt")))
        .as("committed fixtures")
        .containsExactlyInAnyOrderElementsOf(written);
    for (String name : written) {
      assertThat(Files.readAllBytes(out.resolve(name)))
          .as(name + " differs from what make_fixtures.py writes now")
          .isEqualTo(Files.readAllBytes(events.resolve(name)));
    }
  }

  private static Path repositoryRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.exists(p.resolve("build/python-env.sh"))) {
      p = p.getParent();
    }
    assertThat(p).as("repository root with build/python-env.sh").isNotNull();
    return p;
  }

  private static String engine(Path root, String name) throws IOException {
    for (String line : Files.readAllLines(root.resolve("build/engines.properties"))) {
      if (line.startsWith(name + "=")) {
        return line.substring(name.length() + 1).strip();
      }
    }
    throw new AssertionError("build/engines.properties pins no " + name);
  }

  /** Runs build/python-env.sh; its last stdout line is the answer. */
  private static String env(Path root, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(root.resolve("build/python-env.sh").toString());
    cmd.addAll(List.of(args));
    Run r = run(root, cmd.toArray(String[]::new));
    Assumptions.assumeTrue(
        r.code != 3 && r.code != 4,
        () -> "SKIPPED LOUDLY: build/python-env.sh " + String.join(" ", args) + ": " + r.err);
    assertThat(r.code).as("build/python-env.sh " + String.join(" ", args) + ":\n" + r.err).isZero();
    List<String> lines = r.out.lines().toList();
    return lines.get(lines.size() - 1).strip();
  }

  private record Run(int code, String out, String err) {}

  private static Run run(Path dir, String... cmd) throws Exception {
    Path err = Files.createTempFile("fixtures", ".err");
    try {
      Process p =
          new ProcessBuilder(cmd)
              .directory(dir.toFile())
              .redirectError(err.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int code = p.waitFor();
      return new Run(code, out, Files.readString(err));
    } finally {
      Files.deleteIfExists(err);
    }
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
