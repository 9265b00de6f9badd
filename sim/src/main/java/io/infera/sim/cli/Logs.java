package io.infera.sim.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** Log level of the commands that draw a progress bar. */
final class Logs {

  private Logs() {}

  /**
   * Warnings only, so component start/stop lines do not tear the progress bar; {@code
   * INFERA_LOG_LEVEL} still wins when set.
   */
  static void quietUnlessConfigured() {
    String configured = System.getenv("INFERA_LOG_LEVEL");
    if (configured != null && !configured.isBlank()) {
      return;
    }
    if (LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME) instanceof Logger root) {
      root.setLevel(Level.WARN);
    }
  }
}
