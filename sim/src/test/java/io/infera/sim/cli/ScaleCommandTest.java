package io.infera.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ScaleCommandTest {

  @TempDir Path dir;

  @Test
  void aSmallRunWritesEveryPointAndChart() throws Exception {
    Path out = dir.resolve("s");
    BenchCommandTest.Outcome o =
        BenchCommandTest.run(
            "scale",
            "--workers=8,16",
            "--entries=20000",
            "--sweep-workers=16",
            "--sweep-entries=10000,20000",
            "--prompt-blocks=4,300",
            "--out=" + out);
    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.err()).contains("scale [1/6] 8 workers").contains("scale [6/6] 16 workers");
    List<String> csv = Files.readAllLines(out.resolve("results.csv"));
    // 2 fleets x 2 prompts, then 2 sizes x 2 layouts x the 2,000-block prompt.
    assertThat(csv).hasSize(1 + 4 + 4);
    assertThat(csv.get(0)).startsWith("workers,entries,layout,prompt_blocks,apply_blocks_per_s");
    assertThat(csv.get(1)).startsWith("8,").contains(",unique,4,");
    assertThat(csv.get(8)).startsWith("16,").contains(",shared,2000,");
    for (String row : csv.subList(1, csv.size())) {
      String[] f = row.split(",");
      assertThat(Long.parseLong(f[1])).as(row).isBetween(5_000L, 25_000L);
      assertThat(Double.parseDouble(f[6])).as("match p50 of %s", row).isPositive();
      assertThat(Double.parseDouble(f[8])).as("pick p50 of %s", row).isPositive();
    }
    for (String png :
        List.of(
            "match_p50_vs_workers.png",
            "match_p99_vs_workers.png",
            "pick_p50_vs_workers.png",
            "match_p99_vs_entries.png",
            "bytes_per_entry_vs_entries.png")) {
      assertThat(Files.size(out.resolve(png))).as(png).isGreaterThan(1000);
    }
    assertThat(Files.readString(out.resolve("report.md"))).contains("match_p99_vs_workers.png");
    assertThat(o.out()).contains("match p99").contains("report: " + out);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--workers=4|--workers: each must be 8..65536, got 4",
        "--sweep-workers=70000|--sweep-workers must be 8..65536",
        "--prompt-blocks=0|--prompt-blocks: each must be 1..65536, got 0",
        "--entries=0|--entries must be 1..200000000",
        "--sweep-entries=300000000|--sweep-entries: each must be 1..200000000",
      })
  void badOptionsStopWithAMessage(String option, String message) {
    BenchCommandTest.Outcome o = BenchCommandTest.run("scale", option);
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains(message).doesNotContain("Exception");
  }

  @Test
  void tooSmallAHeapIsNamedWithTheFlagToUse() {
    BenchCommandTest.Outcome o = BenchCommandTest.run("scale", "--sweep-entries=190000000");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("needs about").contains("-Xmx");
  }
}
