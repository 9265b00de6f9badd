package io.infera.router.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.yaml.snakeyaml.Yaml;

/**
 * Properties of lenient loading over the full reference document with keys this router does not
 * know injected anywhere: the config is the one without them, every one is reported once, strict
 * loading names one of them, {@code mustUnderstand} turns any of them into a refusal, and damaged
 * documents are only ever a {@link ConfigException}.
 */
class UnknownKeysProperties {

  private static final String REFERENCE = read(Path.of("..", "config", "router", "reference.yaml"));

  /** The mappings of the reference document where a newer writer could add a key. */
  private static final List<String> SECTIONS =
      List.of(
          "",
          "tokenizer",
          "policy",
          "events",
          "events.nats",
          "discovery",
          "discovery.pools[0]",
          "discovery.workers[0]",
          "limits",
          "listen");

  /** One key a newer writer added: where, its name, its value. */
  record Injection(String section, String key, Object value) {
    String path() {
      return section.isEmpty() ? key : section + "." + key;
    }
  }

  @Provide
  Arbitrary<List<Injection>> injections() {
    Arbitrary<Object> value =
        Arbitraries.oneOf(
            Arbitraries.integers().map(i -> (Object) i),
            Arbitraries.strings().ofMaxLength(20).map(s -> (Object) s),
            Arbitraries.of(true, false).map(b -> (Object) b),
            Arbitraries.integers().list().ofMaxSize(3).map(l -> (Object) l),
            Arbitraries.strings()
                .alpha()
                .ofMinLength(1)
                .ofMaxLength(5)
                .map(k -> (Object) Map.of(k, Map.of("deeper", List.of(1, Map.of("x", "y"))))));
    // "zz" + letters: never one of this router's keys (none starts with zz).
    Arbitrary<String> key = Arbitraries.strings().alpha().ofMaxLength(12).map(s -> "zz" + s);
    return Combinators.combine(Arbitraries.of(SECTIONS), key, value)
        .as(Injection::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(8)
        .uniqueElements(Injection::path);
  }

  @Property(tries = 100)
  void lenientLoadingIgnoresExactlyTheInjectedKeys(@ForAll("injections") List<Injection> injections)
      throws Exception {
    ConfigLoader.Loaded loaded =
        ConfigLoader.parse(document(injections, List.of()), Strictness.LENIENT);
    assertThat(loaded.config()).isEqualTo(ConfigLoader.parse(REFERENCE));
    assertThat(loaded.ignored().total()).isEqualTo(injections.size());
    assertThat(new LinkedHashSet<>(loaded.ignored().paths()))
        .containsExactlyInAnyOrderElementsOf(injections.stream().map(Injection::path).toList());
  }

  @Property(tries = 100)
  void strictLoadingNamesAnInjectedKey(@ForAll("injections") List<Injection> injections) {
    Set<String> paths = new LinkedHashSet<>(injections.stream().map(Injection::path).toList());
    assertThatThrownBy(() -> ConfigLoader.parse(document(injections, List.of())))
        .isInstanceOf(ConfigException.class)
        .satisfies(
            e ->
                assertThat(paths)
                    .anyMatch(p -> e.getMessage().startsWith(p + ": unknown key (expected")));
  }

  @Property(tries = 100)
  void anyInjectedKeyListedInMustUnderstandIsARefusal(
      @ForAll("injections") List<Injection> injections, @ForAll int pick) {
    Injection listed = injections.get(Math.floorMod(pick, injections.size()));
    String entry = ConfigNode.generic(listed.path());
    assertThatThrownBy(
            () -> ConfigLoader.parse(document(injections, List.of(entry)), Strictness.LENIENT))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(": unknown key that mustUnderstand lists");
  }

  @Property(tries = 200)
  void damagedDocumentsWithUnknownKeysAreOnlyEverAConfigException(
      @ForAll("injections") List<Injection> injections,
      @ForAll("damage") List<Map.Entry<Integer, Character>> damage) {
    StringBuilder sb = new StringBuilder(document(injections, List.of()));
    for (Map.Entry<Integer, Character> d : damage) {
      sb.setCharAt(Math.floorMod(d.getKey(), sb.length()), d.getValue());
    }
    try {
      ConfigLoader.Loaded l = ConfigLoader.parse(sb.toString(), Strictness.LENIENT);
      assertThat(l.ignored().paths().size()).isLessThanOrEqualTo(IgnoredKeys.MAX_LISTED);
    } catch (ConfigException expected) {
      assertThat(expected.getMessage()).isNotBlank();
    }
  }

  @Provide
  Arbitrary<List<Map.Entry<Integer, Character>>> damage() {
    return Combinators.combine(
            Arbitraries.integers(), Arbitraries.of("{}[]:,'\"-#&*!|>\n \t%@`".toCharArray()))
        .as(Map::entry)
        .list()
        .ofMinSize(1)
        .ofMaxSize(4);
  }

  /** The reference document with the injections and a {@code mustUnderstand} list. */
  @SuppressWarnings("unchecked")
  static String document(List<Injection> injections, List<String> mustUnderstand) {
    Map<String, Object> doc = new Yaml().load(REFERENCE);
    for (Injection in : injections) {
      Map<String, Object> node = doc;
      if (!in.section().isEmpty()) {
        for (String part : in.section().split("\\.")) {
          node =
              part.endsWith("[0]")
                  ? ((List<Map<String, Object>>) node.get(part.substring(0, part.length() - 3)))
                      .get(0)
                  : (Map<String, Object>) node.get(part);
        }
      }
      node.put(in.key(), in.value());
    }
    if (!mustUnderstand.isEmpty()) {
      doc.put("mustUnderstand", new ArrayList<>(mustUnderstand));
    }
    return new Yaml().dump(new LinkedHashMap<>(doc));
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
