package io.infera.router.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code infera-router <version>} for every subcommand's {@code --version}: the Maven project
 * version, filtered into a resource at build time, so the jar and the test classpath agree.
 */
final class Version implements IVersionProvider {

  /** The Maven project version this build carries. */
  static String number() {
    try (InputStream in =
        Version.class.getResourceAsStream("/io/infera/router/version.properties")) {
      if (in == null) {
        throw new IllegalStateException("version.properties is missing from the classpath");
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String[] getVersion() {
    return new String[] {"infera-router " + number()};
  }
}
