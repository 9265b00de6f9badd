package io.infera.operator.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The repository's README and docs/ pages, and the backticked names they mention. */
public final class DocsText {

  private DocsText() {}

  /** The repository root (surefire and failsafe pass it as {@code infera.repo}). */
  public static Path repo() {
    String root = System.getProperty("infera.repo");
    if (root == null || !Files.exists(Path.of(root, "docs", "contracts.md"))) {
      throw new IllegalStateException("infera.repo does not name the repository root: " + root);
    }
    return Path.of(root);
  }

  /** README.md and every page under docs/. */
  public static List<Path> pages() {
    Path root = repo();
    List<Path> out = new ArrayList<>(List.of(root.resolve("README.md")));
    try (Stream<Path> s = Files.walk(root.resolve("docs"))) {
      s.filter(f -> f.toString().endsWith(".md")).sorted().forEach(out::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** Group 1 of every match of {@code pattern} in the pages. */
  public static Set<String> mentioned(Pattern pattern) {
    Set<String> out = new TreeSet<>();
    for (Path page : pages()) {
      try {
        Matcher m = pattern.matcher(Files.readString(page));
        while (m.find()) {
          out.add(m.group(1));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }
}
