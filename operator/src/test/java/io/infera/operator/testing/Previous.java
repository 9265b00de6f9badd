package io.infera.operator.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The previous release's fixtures ({@code operator/src/test/resources/upgrade/previous}, written by
 * {@code build/upgrade-fixtures.sh}; its README says what each file is).
 */
public final class Previous {

  private Previous() {}

  public static Path dir() {
    return Fixtures.moduleDir().resolve("src/test/resources/upgrade/previous");
  }

  /** The sample names ({@code sim}, {@code vllm-mixed}, …) the previous release shipped. */
  public static List<String> samples() {
    try (Stream<Path> files = Files.list(dir().resolve("crs"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".yaml"))
          .map(n -> n.substring(0, n.length() - ".yaml".length()))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code crs/NAME.yaml}: the InferaDeployment as the previous release shipped it. */
  public static String cr(String sample) {
    return Fixtures.read(dir().resolve("crs/" + sample + ".yaml"));
  }

  /** {@code rendered/NAME.yaml}: every child the previous operator rendered for it. */
  public static String rendered(String sample) {
    return Fixtures.read(dir().resolve("rendered/" + sample + ".yaml"));
  }

  /** {@code routerconfig/NAME.yaml}: the RouterConfig the previous operator wrote for it. */
  public static String routerConfig(String sample) {
    return Fixtures.read(dir().resolve("routerconfig/" + sample + ".yaml"));
  }
}
