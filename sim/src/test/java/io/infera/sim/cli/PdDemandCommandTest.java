package io.infera.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PdDemandCommandTest {

  @TempDir Path dir;

  @Test
  void aSmallRunReportsEveryModeAndSeedAndShadowRoutesAsOff() throws Exception {
    Path out = dir.resolve("pd");
    BenchCommandTest.Outcome o =
        BenchCommandTest.run(
            "pd-demand", "--seeds=2", "--requests=600", "--modes=off,shadow,on", "--out=" + out);
    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.err())
        .contains("pd-demand [1/6] seed 1, demand off, 600 requests")
        .contains("pd-demand [6/6] seed 2, demand on");
    List<String> csv = Files.readAllLines(out.resolve("results.csv"));
    assertThat(csv).hasSize(1 + 6);
    assertThat(csv.get(0)).startsWith("seed,demand,time_avg_ratio,mean_instant_ratio");
    for (int seed = 0; seed < 2; seed++) {
      String[] off = csv.get(1 + 3 * seed).split(",");
      String[] shadow = csv.get(2 + 3 * seed).split(",");
      String[] on = csv.get(3 + 3 * seed).split(",");
      assertThat(off[1]).isEqualTo("off");
      assertThat(shadow[1]).isEqualTo("shadow");
      assertThat(on[1]).isEqualTo("on");
      // shadow books and suggests but routes exactly as off: the same tokens and latencies.
      for (int col : new int[] {2, 3, 4, 7, 9, 10}) {
        assertThat(shadow[col]).as("column %d", col).isEqualTo(off[col]);
      }
      assertThat(off[8]).as("off suggests nothing").isEmpty();
      assertThat(Double.parseDouble(shadow[8])).isBetween(0.0, 1.0);
      assertThat(Double.parseDouble(on[3])).isGreaterThanOrEqualTo(1.0);
      assertThat(off[7].split(";")).hasSize(4);
    }
    String report = Files.readString(out.resolve("report.md"));
    assertThat(report).contains("600 requests per run").contains("| on |").contains("seed 2");
    assertThat(o.out()).contains("| shadow |").contains("report: " + out);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--seeds=0|--seeds must be 1..100, got 0",
        "--requests=10|--requests must be 100..1000000, got 10",
        "--rate=0|--rate must be above 0",
        "--rate=NaN|--rate must be above 0",
        "--prefill-workers=0|--prefill-workers must be 1..256",
        "--decode-workers=1|--decode-workers must be 2..256",
        "--modes=on,sometimes|--modes: expected off, shadow or on, got 'sometimes'",
      })
  void badOptionsStopWithAMessage(String option, String message) {
    BenchCommandTest.Outcome o = BenchCommandTest.run("pd-demand", option);
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains(message).doesNotContain("Exception");
  }
}
