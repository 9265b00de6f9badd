package io.infera.sim.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code --version} of every {@code infera-sim} command: {@code infera-sim <Maven project
 * version>}, read from a resource Maven filters, so the jar and the test classpath agree.
 */
public final class Version implements IVersionProvider {

  private static final String RESOURCE = "/io/infera/sim/version.properties";

  /** The Maven project version this build was made from. */
  public static String projectVersion() {
    try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
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
    return new String[] {"infera-sim " + projectVersion()};
  }
}
