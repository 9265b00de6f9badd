package io.infera.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A fixed port that is taken fails the engine's start with the port and what it was for. */
class SimEnginePortInUseTest {

  @ParameterizedTest(name = "{0} taken")
  @CsvSource({"HTTP", "ZMQ KV events", "ZMQ replay"})
  void namesThePortAndWhatItWasFor(String purpose) throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      EngineOptions.Builder b = EngineOptions.defaults().toBuilder().host("127.0.0.1");
      EngineOptions o =
          switch (purpose) {
            case "HTTP" -> b.port(port).zmqPort(-1).replayPort(-1).build();
            case "ZMQ KV events" -> b.port(0).zmqPort(port).replayPort(-1).build();
            default -> b.port(0).zmqPort(0).replayPort(port).build();
          };
      assertThatThrownBy(() -> SimEngine.start(o, null, SharedTokenizer.qwen3()).close())
          .isInstanceOfSatisfying(
              PortInUseException.class,
              e -> {
                assertThat(e.port()).isEqualTo(port);
                assertThat(e.purpose()).isEqualTo(purpose);
              })
          .hasMessage("port " + port + " (" + purpose + ") is already in use");
    }
  }

  @Test
  void namesThePortOfTheRankThatCannotBind() throws Exception {
    int dpSize = 2;
    int takenRank = 1;
    // Rank r publishes on zmqPort + r: with rank 1's port taken, the message names that one.
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int base = probe.getLocalPort();
      probe.close();
      try (ServerSocket taken =
          new ServerSocket(base + takenRank, 1, InetAddress.getLoopbackAddress())) {
        EngineOptions o =
            EngineOptions.defaults().toBuilder()
                .host("127.0.0.1")
                .port(0)
                .zmqPort(base)
                .dpSize(dpSize)
                .build();
        assertThatThrownBy(() -> SimEngine.start(o, null, SharedTokenizer.qwen3()).close())
            .isInstanceOf(PortInUseException.class)
            .hasMessage("port " + (base + takenRank) + " (ZMQ KV events) is already in use");
      }
    }
  }
}
