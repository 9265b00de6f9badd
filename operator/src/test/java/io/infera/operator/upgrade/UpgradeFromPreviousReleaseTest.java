package io.infera.operator.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.infera.operator.desired.DesiredRouterConfig;
import io.infera.operator.render.Renderer;
import io.infera.operator.render.ResourceParser;
import io.infera.operator.testing.Fixtures;
import io.infera.operator.testing.Previous;
import io.infera.operator.testing.RouterKeys;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

/**
 * An upgrade from the previous release (docs/contracts.md, "Version skew"), against the fixtures
 * {@code build/upgrade-fixtures.sh} generated from it: the new CRD and operator accept every
 * resource it shipped, render the same children except for the changes {@code
 * deliberate-changes.txt} lists with their reasons, and write for each of them a RouterConfig whose
 * keys the previous router accepts, so a router one release older does not crash-loop.
 */
class UpgradeFromPreviousReleaseTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  static List<String> samples() {
    return Previous.samples();
  }

  @Test
  void theFixturesAreThere() {
    // Guards the parameterized tests against an empty or moved fixture directory.
    assertThat(samples()).contains("sim", "vllm-mixed", "vllm-pd", "sglang-pd");
    assertThat(RouterKeys.previous())
        .hasSizeGreaterThan(40)
        .contains("model", "discovery.pools[].zmqPort", "limits.maxBodyBytes");
    assertThat(Fixtures.read(Previous.dir().resolve("SOURCE"))).contains("version=", "commit=");
  }

  @ParameterizedTest
  @MethodSource("samples")
  void theNewCrdSchemaAcceptsThePreviousResource(String sample) {
    Map<String, Object> crd =
        new Yaml()
            .load(
                Fixtures.read(
                    Fixtures.repoRoot().resolve("crds/inferadeployments.infera.io-v1.yml")));
    Schema schema =
        SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4)
            .getSchema(JSON.valueToTree(openApi(crd)));
    Object resource = new Yaml().load(Previous.cr(sample));
    List<String> errors =
        schema.validate(JSON.valueToTree(resource)).stream().map(Error::toString).toList();
    assertThat(errors).as(sample).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("samples")
  void theNewOperatorRendersThePreviousResource(String sample) throws Exception {
    // ResourceParser refuses unknown fields: a field the new API dropped would show here.
    ResourceParser.parse(Previous.cr(sample), sample);
    Renderer.Result r = Renderer.render(Previous.cr(sample), sample, Renderer.Format.YAML);
    assertThat(r).as(sample + ": " + r).isInstanceOf(Renderer.Result.Rendered.class);
  }

  @Test
  void childrenDifferFromThePreviousReleaseOnlyDeliberately() {
    List<String> found = new ArrayList<>();
    for (String sample : samples()) {
      Renderer.Result r = Renderer.render(Previous.cr(sample), sample, Renderer.Format.YAML);
      assertThat(r).isInstanceOf(Renderer.Result.Rendered.class);
      String now = ((Renderer.Result.Rendered) r).text();
      found.addAll(ChildrenDiff.diff(sample, Previous.rendered(sample), now));
    }
    List<ChildrenDiff.Deliberate> deliberate =
        ChildrenDiff.deliberate(Fixtures.read(Previous.dir().resolve("deliberate-changes.txt")));
    List<String> unexplained =
        found.stream().filter(d -> deliberate.stream().noneMatch(x -> x.matches(d))).toList();
    assertThat(unexplained)
        .as(
            "changes of the rendered children since the previous release that"
                + " upgrade/previous/deliberate-changes.txt does not list (add each with its"
                + " reason, or undo it)")
        .isEmpty();
    List<String> stale =
        deliberate.stream()
            .filter(x -> found.stream().noneMatch(x::matches))
            .map(ChildrenDiff.Deliberate::line)
            .toList();
    assertThat(stale).as("deliberate-changes.txt lines that match no change").isEmpty();
  }

  @ParameterizedTest
  @MethodSource("samples")
  void thePreviousRouterKnowsEveryKeyWrittenForAPreviousResource(String sample) throws Exception {
    Map<String, Object> doc =
        DesiredRouterConfig.document(
            Fixtures.fleet(withUid(ResourceParser.parse(Previous.cr(sample), sample))).inputs());
    Set<String> unknownToPrevious = new TreeSet<>(RouterKeys.used(doc));
    unknownToPrevious.removeAll(RouterKeys.previous());
    assertThat(unknownToPrevious)
        .as(
            "%s: keys the previous router refuses (write a new key only when the resource uses"
                + " its feature: DesiredRouterConfig.putIfSet)",
            sample)
        .isEmpty();
  }

  @Test
  void theKeyCheckSeesANewKey() {
    // Guards the check above: a document with a key added since would be caught.
    Map<String, Object> doc = new LinkedHashMap<>(new Yaml().load(Previous.routerConfig("sim")));
    doc.put("listen", Map.of("port", 8000, "tls", Map.of("cert", "/c")));
    Set<String> unknown = new TreeSet<>(RouterKeys.used(doc));
    unknown.removeAll(RouterKeys.previous());
    assertThat(unknown).containsExactly("listen.tls", "listen.tls.cert");
  }

  @Test
  void everyKeyAddedSinceThePreviousReleaseSaysWhatAnOlderRouterDoes() {
    // The skew table of docs/contracts.md lists each key the previous router does not know, with
    // what that router does when a newer operator writes it.
    Set<String> added =
        new TreeSet<>(
            RouterKeys.accepted(
                Fixtures.read(Fixtures.repoRoot().resolve("config/router/reference.yaml"))));
    added.removeAll(RouterKeys.previous());
    String contracts = Fixtures.read(Fixtures.repoRoot().resolve("docs/contracts.md"));
    Matcher section = Pattern.compile("(?s)## Version skew\\n(.*?)(\\n## |\\z)").matcher(contracts);
    assertThat(section.find()).as("docs/contracts.md has a \"Version skew\" section").isTrue();
    List<String> missing = new ArrayList<>();
    for (String key : added) {
      if (!Pattern.compile("(?m)^\\| `" + Pattern.quote(key) + "` \\|")
          .matcher(section.group(1))
          .find()) {
        missing.add(key);
      }
    }
    assertThat(missing)
        .as("keys added since the previous release without a row in the Version skew table")
        .isEmpty();
  }

  private static io.infera.operator.api.v1alpha1.InferaDeployment withUid(
      io.infera.operator.api.v1alpha1.InferaDeployment idep) {
    idep.getMetadata().setUid(Fixtures.UID);
    return idep;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> openApi(Map<String, Object> crd) {
    Map<String, Object> spec = (Map<String, Object>) crd.get("spec");
    List<Object> versions = (List<Object>) spec.get("versions");
    Map<String, Object> v = (Map<String, Object>) versions.get(0);
    return (Map<String, Object>) ((Map<String, Object>) v.get("schema")).get("openAPIV3Schema");
  }
}
