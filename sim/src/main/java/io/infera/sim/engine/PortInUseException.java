package io.infera.sim.engine;

import java.io.IOException;

/**
 * A fixed port that something else already holds, with what this program wanted it for; the command
 * line prints its message as one line and exits with 2.
 */
public final class PortInUseException extends IOException {

  private final int port;
  private final String purpose;

  /**
   * @param purpose what the port is for, e.g. {@code HTTP}, {@code ZMQ KV events}
   */
  public PortInUseException(int port, String purpose, Throwable cause) {
    super("port " + port + " (" + purpose + ") is already in use", cause);
    this.port = port;
    this.purpose = purpose;
  }

  public int port() {
    return port;
  }

  public String purpose() {
    return purpose;
  }

  /**
   * Whether {@code t} or one of its causes says the address is taken ({@code EADDRINUSE}): the
   * JDK's {@link java.net.BindException} and Netty's native errors both say "Address already in
   * use"; other bind failures (an address this host does not have) do not count.
   */
  public static boolean isAddressInUse(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      String m = c.getMessage();
      if (m != null && m.contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }
}
