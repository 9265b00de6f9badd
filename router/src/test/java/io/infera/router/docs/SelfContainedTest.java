package io.infera.router.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository explains itself: no source, build file, config or page points at a document
 * outside it (the planning notes, an issue tracker's numbering) — code cites {@code docs/}.
 */
class SelfContainedTest {

  static final Pattern OUTSIDE =
      Pattern.compile(
          "DESIGN\\.md|STYLE\\.md|\\.\\./shared/|\\b(?:issue|task)s? #?\\d+\\b",
          Pattern.CASE_INSENSITIVE);

  private static final Set<String> TEXT =
      Set.of(
          ".java",
          ".md",
          ".yaml",
          ".yml",
          ".xml",
          ".json",
          ".lua",
          ".sh",
          ".py",
          ".properties",
          ".txt",
          ".tpl",
          ".jsh");

  private static final Set<String> SKIP = Set.of("target", ".git", "node_modules", ".mvn");

  static List<String> offenders(Path root) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        Path rel = root.relativize(f);
        if (skipped(rel) || TEXT.stream().noneMatch(ext -> f.toString().endsWith(ext))) {
          continue;
        }
        String text;
        try {
          text = Files.readString(f);
        } catch (MalformedInputException e) {
          continue; // not UTF-8 text
        }
        Matcher m = OUTSIDE.matcher(text);
        while (m.find()) {
          out.add(rel + ": " + m.group());
        }
      }
    }
    return out;
  }

  private static boolean skipped(Path rel) {
    for (Path part : rel) {
      if (SKIP.contains(part.toString())) {
        return true;
      }
    }
    return false;
  }

  @Test
  void nothingPointsOutsideTheRepository() throws IOException {
    assertThat(offenders(DocumentedConfigKeysTest.repo())).isEmpty();
  }

  @Test
  void aPointerOutsideIsCaught(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
    // Spelt in pieces so that this file does not match itself.
    String design = "DESIGN" + ".md";
    Files.writeString(dir.resolve("A.java"), "/** See " + design + " §5 and issue" + " 6. */\n");
    Files.writeString(dir.resolve("b.md"), "as upstream PR #45177 changed\n");
    Files.createDirectories(dir.resolve("target"));
    Files.writeString(dir.resolve("target/C.java"), "// " + design + "\n");
    assertThat(offenders(dir)).containsExactly("A.java: " + design, "A.java: issue" + " 6");
  }
}
