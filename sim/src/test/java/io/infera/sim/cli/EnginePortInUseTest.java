package io.infera.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code infera-sim engine} on a port something else holds: one line naming it, exit code 2. */
class EnginePortInUseTest {

  // One case per socket kind would load the tokenizer each time (seconds); SimEnginePortInUseTest
  // covers the ZMQ ports on a shared one, this the command's message and exit code.
  @ParameterizedTest(name = "{0} taken")
  @CsvSource({
    // the flag whose port is taken, the other flags, what the message calls the port
    "--port, --zmq-port=-1, HTTP",
  })
  void namesThePortAndWhatItWasFor(String flag, String others, String purpose) throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine cl = InferaSim.commandLine();
      cl.setOut(new PrintWriter(out));
      cl.setErr(new PrintWriter(err));
      String[] args = ("engine --host=127.0.0.1 " + flag + "=" + port + " " + others).split(" ");
      // Preemptive: were the port bound after all, the engine would serve until stopped.
      int code = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> cl.execute(args));
      assertThat(code).isEqualTo(2);
      assertThat(err.toString())
          .isEqualTo(
              "infera-sim engine: port "
                  + port
                  + " ("
                  + purpose
                  + ") is already in use"
                  + System.lineSeparator());
      assertThat(out.toString()).isEmpty();
    }
  }
}
