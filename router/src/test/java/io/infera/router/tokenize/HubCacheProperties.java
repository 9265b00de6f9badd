package io.infera.router.tokenize;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Hostile revisions and ref files never make the router read outside the model's snapshots. */
class HubCacheProperties {

  @Provide
  Arbitrary<String> hostile() {
    return Arbitraries.oneOf(
        Arbitraries.strings().ofMaxLength(40),
        Arbitraries.strings().withChars("./\\a0-_ \n\u0000").ofMaxLength(20),
        Arbitraries.of("..", "../..", "../../etc", "/etc", "a/../../b", ".", "", " main"));
  }

  @Property(tries = 300)
  void anAcceptedRevisionHasNoDotSegmentsAndNoLeadingSlash(@ForAll("hostile") String rev) {
    if (HubNames.REVISION.matcher(rev).matches()) {
      assertThat(rev).doesNotStartWith("/").doesNotEndWith("/").doesNotContain("//");
      for (String seg : rev.split("/")) {
        assertThat(seg).isNotEqualTo(".").isNotEqualTo("..").doesNotStartWith(".");
      }
      assertThat(rev.length()).isLessThanOrEqualTo(128);
    }
  }

  @Property(tries = 200)
  void whateverARefFileSaysTheSnapshotStaysInsideTheRepo(@ForAll("hostile") String content)
      throws Exception {
    Path cache = Files.createTempDirectory("hubprop");
    try {
      Path repo = cache.resolve("models--acme--tiny");
      Files.createDirectories(repo.resolve("refs"));
      Files.createDirectories(repo.resolve("snapshots"));
      Files.createDirectories(cache.resolve("etc"));
      Files.writeString(repo.resolve("refs/main"), content, StandardCharsets.UTF_8);
      TokenizerSource.Hub hub = new TokenizerSource.Hub("acme/tiny", cache, null);
      try {
        Path snapshot = hub.snapshot();
        assertThat(snapshot.normalize()).startsWith(repo.resolve("snapshots"));
        assertThat(snapshot.normalize()).isNotEqualTo(repo.resolve("snapshots"));
      } catch (TokenizerException e) {
        assertThat(e.getMessage())
            .contains("tokenizer.json not found")
            .contains("docs/operations.md");
      }
    } finally {
      try (var s = Files.walk(cache)) {
        s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
