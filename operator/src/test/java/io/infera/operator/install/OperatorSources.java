package io.infera.operator.install;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The operator's main sources and resources as one text (what env vars and flags it reads). */
final class OperatorSources {

  private OperatorSources() {}

  static String mainText() {
    Path main = InstallFiles.path("operator/src/main");
    try (Stream<Path> files = Files.walk(main)) {
      return files
          .filter(Files::isRegularFile)
          .filter(f -> f.toString().endsWith(".java") || f.toString().endsWith(".xml"))
          .map(
              f -> {
                try {
                  return Files.readString(f);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .collect(Collectors.joining("\n"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
