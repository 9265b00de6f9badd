package io.infera.router.config;

/**
 * An invalid configuration value; the message names the key (e.g. {@code policy.overlapWeight}).
 */
public final class ConfigException extends Exception {
  public ConfigException(String message) {
    super(message, null, false, false);
  }
}
