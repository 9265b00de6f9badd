package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.sim.cli.EngineCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class EngineCommandTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--block-size 0|--block-size must be >= 1",
        "--flavor trtllm|vllm, vllm-array, vllm-map, sglang",
        "--hash-seed abc|invalid --hash-seed 'abc'",
        "--port 70000|--port must be 0..65535",
        "--zmq-port -2|--zmq-port must be -1..65535",
        "--speedup 0|--speedup must be a positive number",
        "--dp-size 0|--dp-size must be 1..64",
        "--num-blocks x|'--num-blocks'",
        "--max-num-seqs 0|--max-num-seqs must be >= 1",
        "--kv-events-host 127.0.0.1 --zmq-port 0|needs a fixed --zmq-port",
        "--kv-events-host=|--kv-events-host must not be blank"
      })
  void invalidValuesExitWithUsageError(String args, String message) {
    StringWriter err = new StringWriter();
    CommandLine cl = new CommandLine(new EngineCommand());
    cl.setErr(new PrintWriter(err));
    cl.setOut(new PrintWriter(new StringWriter()));
    assertThat(cl.execute(args.split(" "))).isEqualTo(2);
    assertThat(err.toString()).contains(message);
  }

  @Test
  void flagsMapOntoEngineOptions() {
    EngineCommand cmd = new EngineCommand();
    new CommandLine(cmd)
        .parseArgs(
            "--host=0.0.0.0",
            "--port=9001",
            "--zmq-port=-1",
            "--replay-port=6000",
            "--flavor=sglang",
            "--block-size=32",
            "--num-blocks=100",
            "--model=m",
            "--tokenizer=/models/x",
            "--speedup=2.5",
            "--dp-size=2",
            "--hash-seed=42",
            "--max-num-seqs=8",
            "--max-num-batched-tokens=512",
            "--topic=");
    assertThat(cmd.options())
        .isEqualTo(
            new EngineOptions(
                "0.0.0.0",
                9001,
                -1,
                6000,
                Flavor.SGLANG,
                32,
                100,
                "m",
                "/models/x",
                2.5,
                2,
                42,
                8,
                512,
                "",
                true,
                null));
  }

  @Test
  void defaultsFollowVllm() {
    EngineCommand cmd = new EngineCommand();
    new CommandLine(cmd).parseArgs("--hash-seed=0");
    EngineOptions o = cmd.options();
    assertThat(o.port()).isEqualTo(8000);
    assertThat(o.zmqPort()).isEqualTo(5557);
    assertThat(o.replayPort()).isEqualTo(-1);
    assertThat(o.flavor()).isEqualTo(Flavor.VLLM);
    assertThat(cmd.options().toBuilder().port(0).zmqPort(0).replayPort(0).build())
        .isEqualTo(EngineOptions.defaults());
  }

  @Test
  void cachedTokensAreReportedUnlessTurnedOff() {
    EngineCommand off = new EngineCommand();
    new CommandLine(off).parseArgs("--enable-prompt-tokens-details=false");
    assertThat(off.options().promptTokensDetails()).isFalse();
    EngineCommand bare = new EngineCommand();
    new CommandLine(bare).parseArgs("--enable-prompt-tokens-details");
    assertThat(bare.options().promptTokensDetails()).isTrue();
    EngineCommand none = new EngineCommand();
    new CommandLine(none).parseArgs();
    assertThat(none.options().promptTokensDetails()).isTrue();
  }
}
