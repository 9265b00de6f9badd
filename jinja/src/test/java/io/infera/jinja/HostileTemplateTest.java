package io.infera.jinja;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The hostile corpus ({@link HostileTemplates}): every template ends in the limit it aims at,
 * within seconds and a bounded allocation — and the whole corpus runs in a JVM with a 64 MiB heap
 * without an {@code OutOfMemoryError}.
 */
class HostileTemplateTest {

  /**
   * What one hostile render may allocate in all, garbage included: the budget's characters and
   * items plus the interpreter's own short-lived objects (scopes, boxed numbers: about 130 bytes
   * per step at the default 2,000,000 steps). What stays live is bounded far lower: the whole
   * corpus runs in a 64 MiB heap (below).
   */
  static final long MAX_ALLOCATED_BYTES = 384L << 20;

  static final List<HostileTemplates.Hostile> CORPUS = HostileTemplates.ALL;

  @Test
  void theCorpusIsLargeAndCoversEveryLimit() {
    assertThat(CORPUS).hasSizeGreaterThanOrEqualTo(30);
    assertThat(
            CORPUS.stream()
                .map(HostileTemplates.Hostile::expected)
                .collect(Collectors.joining("|")))
        .contains("OUTPUT", "VALUE", "ALLOCATION", "STEPS", "DEPTH", "INTEGER");
  }

  @ParameterizedTest(name = "{0}")
  @FieldSource("CORPUS")
  @Timeout(value = 20, unit = TimeUnit.SECONDS)
  void endsInItsLimitWithBoundedAllocation(HostileTemplates.Hostile h) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    String outcome = HostileTemplates.outcome(h);
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(List.of(h.expected().split("\\|"))).as(h.name()).contains(outcome);
    assertThat(allocated).as(h.name() + " allocated bytes").isLessThan(MAX_ALLOCATED_BYTES);
  }

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void theWholeCorpusRunsInA64MiBHeap() throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process p =
        new ProcessBuilder(
                java.toString(),
                "-Xmx64m",
                "-XX:+ExitOnOutOfMemoryError",
                "-Xss1m",
                "-cp",
                System.getProperty("java.class.path"),
                HostileTemplates.class.getName())
            .redirectErrorStream(true)
            .start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        lines.add(line);
      }
    }
    assertThat(p.waitFor(240, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join("\n", lines)).isZero();
    assertThat(lines).last().isEqualTo("done");
    for (HostileTemplates.Hostile h : CORPUS) {
      String line =
          lines.stream().filter(l -> l.startsWith(h.name() + " ")).findFirst().orElseThrow();
      String outcome = line.substring(h.name().length() + 1);
      assertThat(List.of(h.expected().split("\\|"))).as(line).contains(outcome);
    }
  }
}
