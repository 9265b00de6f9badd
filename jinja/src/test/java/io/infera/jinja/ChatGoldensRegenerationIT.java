package io.infera.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Regenerates the chat-template goldens with the real Python libraries (make_goldens.py in the
 * {@code goldens} virtualenv of build/python-env.sh, vLLM's normalization compiled from the pinned
 * wheel) into {@code target/} and requires the committed cases.jsonl to be byte-identical, so the
 * corpus stays what transformers' apply_chat_template renders after vLLM's message handling.
 */
class ChatGoldensRegenerationIT {

  private static final Pattern ID = Pattern.compile("^\\{\"id\": \"((?:[^\"\\\\]|\\\\.)*)\"");

  @Test
  void theCommittedCorpusIsWhatTransformersRendersAfterVllmsNormalization() throws Exception {
    Path repo = repo();
    Path chat = repo.resolve("jinja/src/test/resources/golden/chat");
    String python = pythonEnv(repo, "venv", "goldens", chat.resolve("requirements.txt").toString());
    String wheel = pythonEnv(repo, "wheel", "vllm==" + engineVersion(repo, "vllm"));
    Path out = repo.resolve("jinja/target/goldens/cases.jsonl");
    Files.createDirectories(out.getParent());
    Result gen =
        run(
            repo,
            10,
            python,
            chat.resolve("make_goldens.py").toString(),
            "--vllm-wheel",
            wheel,
            "--out",
            out.toString());
    if (gen.exit != 0) {
      fail("make_goldens.py failed (exit " + gen.exit + "):\n" + gen.output);
    }
    byte[] committed = Files.readAllBytes(chat.resolve("cases.jsonl"));
    byte[] regenerated = Files.readAllBytes(out);
    if (!java.util.Arrays.equals(committed, regenerated)) {
      fail(
          "the committed "
              + chat.resolve("cases.jsonl")
              + " is not what the pinned libraries render ("
              + out
              + "); review and copy it over. Differing cases:\n"
              + differingCases(committed, regenerated));
    }
  }

  @Test
  void differingCasesNamesAddedRemovedAndChangedIds() {
    byte[] a =
        "{\"id\": \"x/a\", \"v\": 1}\n{\"id\": \"x/b\", \"v\": 1}\n"
            .getBytes(StandardCharsets.UTF_8);
    byte[] b =
        "{\"id\": \"x/b\", \"v\": 2}\n{\"id\": \"x/c\", \"v\": 1}\n"
            .getBytes(StandardCharsets.UTF_8);
    assertThat(differingCases(a, b))
        .contains("changed x/b")
        .contains("only in the committed corpus x/a")
        .contains("only in the regenerated corpus x/c");
    assertThat(differingCases(a, a)).isEqualTo("(same cases, different bytes)");
  }

  /** A summary naming each case that differs, for the failure message. */
  static String differingCases(byte[] committed, byte[] regenerated) {
    Map<String, String> before = byId(committed);
    Map<String, String> after = byId(regenerated);
    List<String> lines = new ArrayList<>();
    before.forEach(
        (id, line) -> {
          if (!after.containsKey(id)) {
            lines.add("only in the committed corpus " + id);
          } else if (!after.get(id).equals(line)) {
            lines.add("changed " + id);
          }
        });
    after.keySet().stream()
        .filter(id -> !before.containsKey(id))
        .forEach(id -> lines.add("only in the regenerated corpus " + id));
    if (lines.isEmpty()) {
      return "(same cases, different bytes)";
    }
    int shown = Math.min(lines.size(), 40);
    return String.join("\n", lines.subList(0, shown))
        + (shown < lines.size() ? "\n... and " + (lines.size() - shown) + " more" : "");
  }

  private static Map<String, String> byId(byte[] jsonl) {
    Map<String, String> out = new LinkedHashMap<>();
    String[] lines = new String(jsonl, StandardCharsets.UTF_8).split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].isEmpty()) {
        continue;
      }
      Matcher m = ID.matcher(lines[i]);
      out.put(m.find() ? m.group(1) : "line " + (i + 1), lines[i]);
    }
    return out;
  }

  /** build/python-env.sh; exit 3 (toolchain missing) or 4 (index unreachable) skips loudly. */
  private static String pythonEnv(Path repo, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(repo.resolve("build/python-env.sh").toString());
    cmd.addAll(List.of(args));
    Result r = run(repo, 20, cmd.toArray(String[]::new));
    if (r.exit == 3 || r.exit == 4) {
      String why = "SKIPPED: cannot regenerate the chat goldens: " + r.output.strip();
      System.err.println(why);
      Assumptions.abort(why);
    }
    if (r.exit != 0) {
      fail(
          "build/python-env.sh "
              + String.join(" ", args)
              + " failed (exit "
              + r.exit
              + "):\n"
              + r.output);
    }
    String[] lines = r.stdout.strip().split("\n");
    return lines[lines.length - 1].strip();
  }

  private static String engineVersion(Path repo, String engine) throws IOException {
    Properties p = new Properties();
    try (var in = Files.newInputStream(repo.resolve("build/engines.properties"))) {
      p.load(in);
    }
    String v = p.getProperty(engine);
    assertThat(v).as("build/engines.properties %s", engine).isNotBlank();
    return v.strip();
  }

  private record Result(int exit, String stdout, String output) {}

  private static Result run(Path dir, int timeoutMinutes, String... cmd) throws Exception {
    Path stdout = Files.createTempFile("goldens", ".out");
    Path stderr = Files.createTempFile("goldens", ".err");
    try {
      Process p =
          new ProcessBuilder(cmd)
              .directory(dir.toFile())
              .redirectOutput(stdout.toFile())
              .redirectError(stderr.toFile())
              .start();
      if (!p.waitFor(timeoutMinutes, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        fail(String.join(" ", cmd) + " did not finish in " + timeoutMinutes + " minutes");
      }
      String out = Files.readString(stdout);
      return new Result(p.exitValue(), out, out + Files.readString(stderr));
    } finally {
      Files.deleteIfExists(stdout);
      Files.deleteIfExists(stderr);
    }
  }

  private static Path repo() {
    String prop = System.getProperty("infera.repo");
    Path p = prop != null ? Path.of(prop) : Path.of("").toAbsolutePath();
    for (Path q = p.toAbsolutePath(); q != null; q = q.getParent()) {
      if (Files.isRegularFile(q.resolve("build/python-env.sh"))) {
        return q;
      }
    }
    throw new IllegalStateException("no build/python-env.sh above " + p);
  }
}
