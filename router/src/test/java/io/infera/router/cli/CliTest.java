package io.infera.router.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infera.router.kv.Fixtures;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

class CliTest {

  record Run(int code, String out, String err) {}

  static Run run(String... args) {
    CommandLine cl = InferaRouter.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(
      strings = {"", "hash", "events", "tokenize", "fetch-tokenizer", "serve", "relay"})
  void everyCommandPrintsTheProgramAndItsProjectVersion(String sub) {
    String expected = System.getProperty("project.version");
    assertThat(expected).as("surefire passes project.version").isNotBlank();
    Run r = sub.isEmpty() ? run("--version") : run(sub, "--version");
    assertThat(r.code()).isZero();
    assertThat(r.out().strip()).isEqualTo("infera-router " + expected);
  }

  @Test
  void helpListsTheSubcommands() {
    Run r = run("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("hash").contains("events");
  }

  @Test
  void hashPrintsTheGoldenVectors() {
    Run r = run("hash", "--block-size", "4", "--tokens", "1,2,3,4,5,6,7,8,9,10");
    assertThat(r.code()).isZero();
    assertThat(r.out().lines()).containsExactly("341839abbe30be0b", "37b6de0623bdb5ca");
  }

  @Test
  void hashWithLoraDiffersFromThePlainChain() {
    Run plain = run("hash", "--block-size", "4", "--tokens", "1,2,3,4");
    Run lora = run("hash", "--block-size", "4", "--tokens", "1,2,3,4", "--lora", "sql-lora");
    assertThat(lora.code()).isZero();
    assertThat(lora.out().strip()).hasSize(16).isNotEqualTo(plain.out().strip());
  }

  @Test
  void badHashArgumentsExitTwoWithAMessage() {
    Run zero = run("hash", "--block-size", "0", "--tokens", "1");
    assertThat(zero.code()).isEqualTo(2);
    assertThat(zero.err()).contains("--block-size must be >= 1");
    Run word = run("hash", "--block-size", "4", "--tokens", "1,x");
    assertThat(word.code()).isEqualTo(2);
    assertThat(word.err()).contains("--tokens");
    Run negative = run("hash", "--block-size", "4", "--tokens", "-5");
    assertThat(negative.code()).isEqualTo(2);
    assertThat(negative.err()).contains("outside [0, 4294967295]");
    assertThat(zero.err() + word.err() + negative.err()).doesNotContain("\tat ");
  }

  static java.util.List<String> validFixtures() {
    return Fixtures.valid();
  }

  @ParameterizedTest
  @MethodSource("validFixtures")
  void decodePrintsTheExpectedJsonLines(String name) {
    Run r = run("events", "decode", Fixtures.dir().resolve(name + ".msgpack").toString());
    assertThat(r.code()).isZero();
    assertThat(r.out().strip()).isEqualTo(Fixtures.text(name + ".jsonl").strip());
  }

  @Test
  void decodeReadsStandardInput() {
    InputStream saved = System.in;
    try {
      System.setIn(new ByteArrayInputStream(Fixtures.payload("vllm-array-minimal")));
      Run r = run("events", "decode", "-");
      assertThat(r.code()).isZero();
      assertThat(r.out().lines()).hasSize(2);
    } finally {
      System.setIn(saved);
    }
  }

  @Test
  void malformedPayloadExitsTwoWithOneLineOnStderr() {
    Run r = run("events", "decode", Fixtures.dir().resolve("bad-huge-array.msgpack").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().lines()).hasSize(1);
    assertThat(r.err()).contains("malformed payload (oversized)").contains("2000000000");
  }

  @Test
  void missingFileExitsOneWithAMessage() {
    Run r = run("events", "decode", "/nonexistent/payload.msgpack");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("no such file");
  }

  @Test
  void skippedEventsAreCountedOnStderrAndTheRestPrinted() {
    Run bad =
        run(
            "events",
            "decode",
            Fixtures.dir().resolve("malformed-events-dropped.msgpack").toString());
    assertThat(bad.code()).isZero();
    assertThat(bad.out().lines()).hasSize(1);
    assertThat(bad.err().strip())
        .isEqualTo(
            "infera-router events decode: skipped 5 malformed event(s), the first: events[0]:"
                + " BlockStored.block_hashes: expected an integer or bytes, got string at offset"
                + " 25");
    Run placeholder =
        run("events", "decode", Fixtures.dir().resolve("vllm-0.33.0.msgpack").toString());
    assertThat(placeholder.code()).isZero();
    assertThat(placeholder.out().lines()).hasSize(7);
    assertThat(placeholder.err())
        .contains("skipped 1 offload placeholder(s) (no tokens, block size 0)");
  }

  @Test
  void unknownEventTypesAreReportedOnStderr() {
    Run r = run("events", "decode", Fixtures.dir().resolve("vllm-map.msgpack").toString());
    assertThat(r.code()).isZero();
    assertThat(r.err()).contains("skipped 1 event(s) of unknown type");
  }
}
