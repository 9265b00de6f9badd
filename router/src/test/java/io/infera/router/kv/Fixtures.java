package io.infera.router.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The msgpack fixtures under {@code golden/events} (built by make_fixtures.py). */
public final class Fixtures {

  private Fixtures() {}

  public static Path dir() {
    try {
      return Path.of(Fixtures.class.getResource("/golden/events").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Names of the valid fixtures (without extension). */
  public static List<String> valid() {
    return names(false);
  }

  /** Names of the malformed fixtures (without extension, with the {@code bad-} prefix). */
  public static List<String> malformed() {
    return names(true);
  }

  public static byte[] payload(String name) {
    return read(name + ".msgpack");
  }

  public static String text(String file) {
    return new String(read(file), java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The text of {@code file}, or "" when there is none. */
  public static String optionalText(String file) {
    return Files.exists(dir().resolve(file)) ? text(file) : "";
  }

  private static byte[] read(String file) {
    try {
      return Files.readAllBytes(dir().resolve(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> names(boolean bad) {
    try (Stream<Path> files = Files.list(dir())) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".msgpack"))
          .map(n -> n.substring(0, n.length() - ".msgpack".length()))
          .filter(n -> n.startsWith("bad-") == bad)
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
