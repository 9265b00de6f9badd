package io.infera.operator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.DesiredFleet;
import io.infera.operator.desired.RenderInputs;
import io.infera.operator.install.InstallTools;
import io.infera.operator.install.SampleBreaches;
import io.infera.operator.render.Renderer;
import io.infera.operator.render.ResourceParser;
import io.infera.operator.testing.KubeControlPlane;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code infera-operator render} of every sample, validated by the real API server with {@code
 * kubectl apply --dry-run=server} (client-side and server-side apply): every child kind the
 * operator writes passes the server's own validation. And the pod fields a spec copies into the
 * children verbatim (env, nodeSelector, tolerations, the NATS storage class) that the CRD admits
 * but the server refuses in a Deployment or StatefulSet are refused by render first.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RenderDryRunIT {

  private KubeControlPlane cluster;
  private String ns;
  private final AtomicInteger variants = new AtomicInteger();

  @BeforeAll
  void setUp() {
    cluster = KubeControlPlane.shared();
    Kubectl.installCrd(cluster);
    ns = cluster.newNamespace("render");
  }

  @Test
  void everySamplesChildrenPassTheServersValidation() {
    Set<String> kinds = new TreeSet<>();
    int n = 0;
    for (var e : SampleBreaches.samples().entrySet()) {
      Map<String, Object> sample = SampleBreaches.parse(e.getValue());
      // Two samples may share a name; one namespace holds them all.
      String name = SampleBreaches.metadata(sample).get("name") + "-" + (++n);
      SampleBreaches.metadata(sample).put("name", name);
      String stored = storeAndRead(sample);
      Renderer.Result r = Renderer.render(stored, e.getKey(), Renderer.Format.YAML);
      assertThat(r).as("%s: render", e.getKey()).isInstanceOf(Renderer.Result.Rendered.class);
      Renderer.Result.Rendered rendered = (Renderer.Result.Rendered) r;
      assertThat(rendered.text()).as("children own the stored resource").contains("uid: ");
      String file = Kubectl.file("rendered", rendered.text()).toString();
      for (List<String> mode :
          List.of(
              List.of("apply", "--dry-run=server", "-f", file),
              List.of(
                  "apply",
                  "--server-side",
                  "--field-manager=infera-operator",
                  "--dry-run=server",
                  "-f",
                  file))) {
        InstallTools.Run run = Kubectl.run(cluster, mode.toArray(String[]::new));
        assertThat(run.exitCode())
            .as("%s: kubectl %s: %s", e.getKey(), mode, run.describe())
            .isZero();
        assertThat(Kubectl.warnings(run)).as("%s: %s: warnings", e.getKey(), mode).isEmpty();
        assertThat(run.stdout().lines().filter(l -> l.endsWith("(server dry run)")).count())
            .as("%s: every child accepted: %s", e.getKey(), run.stdout())
            .isEqualTo(rendered.objects());
      }
      addKinds(rendered.text(), kinds);
    }
    assertThat(kinds)
        .containsExactlyInAnyOrder(
            "ConfigMap",
            "Deployment",
            "NetworkPolicy",
            "Role",
            "RoleBinding",
            "Service",
            "ServiceAccount",
            "StatefulSet");
  }

  @Test
  void jsonOutputPassesTheServersValidation() {
    Map<String, Object> sample = SampleBreaches.sample("sim.yaml");
    SampleBreaches.metadata(sample).put("name", "sim-json");
    Renderer.Result r = Renderer.render(storeAndRead(sample), "sim.yaml", Renderer.Format.JSON);
    String text = ((Renderer.Result.Rendered) r).text();
    InstallTools.Run run =
        Kubectl.run(
            cluster, "apply", "--dry-run=server", "-f", Kubectl.file("rendered", text).toString());
    assertThat(run.exitCode()).as(run.describe()).isZero();
    assertThat(Kubectl.warnings(run)).isEmpty();
  }

  /**
   * A resource that never was on a cluster has no uid, so its children's ownerReferences have none:
   * the server refuses them. Rendering the resource as stored (what the docs say for a dry run)
   * gives the uid.
   */
  @Test
  void renderingAFileWithoutUidGivesChildrenTheServerRefuses() {
    Map<String, Object> sample = SampleBreaches.sample("sim.yaml");
    String text = Kubectl.inNamespace(sample, ns);
    Renderer.Result.Rendered r =
        (Renderer.Result.Rendered) Renderer.render(text, "sim.yaml", Renderer.Format.YAML);
    InstallTools.Run run =
        Kubectl.run(
            cluster,
            "apply",
            "--dry-run=server",
            "-f",
            Kubectl.file("rendered", r.text()).toString());
    assertThat(run.exitCode()).isNotZero();
    assertThat(run.stderr())
        .contains("metadata.ownerReferences.uid: Invalid value: \"\": must not be empty");
  }

  // ------------------------------------------------------------------ pod fields copied verbatim

  @SuppressWarnings("unchecked")
  private static Map<String, Object> pool0(Map<String, Object> s) {
    return (Map<String, Object>) ((List<Object>) SampleBreaches.spec(s).get("pools")).get(0);
  }

  private static Arguments variant(
      String what, String specField, String childMessage, Consumer<Map<String, Object>> change) {
    return Arguments.of(what, specField, childMessage, change);
  }

  static Stream<Arguments> podFieldsTheServerRefuses() {
    return Stream.of(
        variant(
            "env valueFrom without a source",
            "spec.pools[0].env[0].valueFrom",
            "].valueFrom: Invalid value: \"\": must specify one of",
            s -> pool0(s).put("env", List.of(Map.of("name", "A", "valueFrom", Map.of())))),
        variant(
            "env with value and valueFrom",
            "spec.pools[0].env[0].valueFrom",
            "may not be specified when `value` is not empty",
            s ->
                pool0(s)
                    .put(
                        "env",
                        List.of(
                            Map.of(
                                "name",
                                "A",
                                "value",
                                "v",
                                "valueFrom",
                                Map.of("fieldRef", Map.of("fieldPath", "metadata.name")))))),
        variant(
            "env valueFrom with two sources",
            "spec.pools[0].env[0].valueFrom",
            "may not have more than one field specified at a time",
            s ->
                pool0(s)
                    .put(
                        "env",
                        List.of(
                            Map.of(
                                "name",
                                "A",
                                "valueFrom",
                                Map.of(
                                    "fieldRef", Map.of("fieldPath", "metadata.name"),
                                    "secretKeyRef", Map.of("name", "s", "key", "k")))))),
        variant(
            "a secretKeyRef without key",
            "spec.pools[0].env[0].valueFrom.secretKeyRef.key",
            "secretKeyRef.key: Required value",
            s ->
                pool0(s)
                    .put(
                        "env",
                        List.of(
                            Map.of(
                                "name",
                                "A",
                                "valueFrom",
                                Map.of("secretKeyRef", Map.of("name", "s")))))),
        variant(
            "a nodeSelector key that is no label key",
            "spec.pools[0].nodeSelector",
            "nodeSelector: Invalid value: \"bad key!\"",
            s -> pool0(s).put("nodeSelector", Map.of("bad key!", "x"))),
        variant(
            "a nodeSelector value that is no label value",
            "spec.pools[0].nodeSelector",
            "nodeSelector: Invalid value: \"bad value!\"",
            s -> pool0(s).put("nodeSelector", Map.of("gpu", "bad value!"))),
        variant(
            "a toleration operator other than Equal or Exists",
            "spec.pools[0].tolerations[0].operator",
            "tolerations[0].operator: Unsupported value: \"Bogus\"",
            s -> pool0(s).put("tolerations", List.of(Map.of("key", "k", "operator", "Bogus")))),
        variant(
            "a toleration without key that is not Exists",
            "spec.pools[0].tolerations[0].operator",
            "operator must be Exists when `key` is empty",
            s -> pool0(s).put("tolerations", List.of(Map.of("value", "v")))),
        variant(
            "an Exists toleration with a value",
            "spec.pools[0].tolerations[0].value",
            "value must be empty when `operator` is 'Exists'",
            s ->
                pool0(s)
                    .put(
                        "tolerations",
                        List.of(Map.of("key", "k", "operator", "Exists", "value", "v")))),
        variant(
            "tolerationSeconds on a NoSchedule toleration",
            "spec.pools[0].tolerations[0].tolerationSeconds",
            "effect must be 'NoExecute' when `tolerationSeconds` is set",
            s ->
                pool0(s)
                    .put(
                        "tolerations",
                        List.of(
                            Map.of("key", "k", "effect", "NoSchedule", "tolerationSeconds", 5)))),
        variant(
            "a toleration effect that does not exist",
            "spec.pools[0].tolerations[0].effect",
            "tolerations[0].effect: Unsupported value: \"NoRun\"",
            s -> pool0(s).put("tolerations", List.of(Map.of("key", "k", "effect", "NoRun")))),
        variant(
            "a toleration key that is no label key",
            "spec.pools[0].tolerations[0].key",
            "tolerations[0].key: Invalid value: \"bad key!\"",
            s ->
                pool0(s)
                    .put("tolerations", List.of(Map.of("key", "bad key!", "operator", "Exists")))),
        variant(
            "a NATS storage class that is no DNS subdomain",
            "spec.nats.deploy.storageClass",
            "storageClassName: Invalid value: \"Fast_SSD\"",
            s ->
                ((Map<String, Object>)
                        ((Map<String, Object>) SampleBreaches.spec(s).get("nats")).get("deploy"))
                    .put("storageClass", "Fast_SSD")));
  }

  /**
   * The CRD stores the resource; the children built from it without our validation are refused by
   * the server (the operator would fail every reconcile with a 422); render refuses the resource
   * first, naming the spec field.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("podFieldsTheServerRefuses")
  void podFieldsTheServerRefusesAreRefusedByRenderFirst(
      String what, String specField, String childMessage, Consumer<Map<String, Object>> change)
      throws Exception {
    Map<String, Object> sample = SampleBreaches.sample("sim.yaml");
    SampleBreaches.metadata(sample).put("name", "pod-" + variants.incrementAndGet());
    change.accept(sample);
    String stored = storeAndRead(sample);

    InferaDeployment idep = ResourceParser.parse(stored, what);
    List<HasMetadata> unchecked = DesiredFleet.fleet(RenderInputs.of(idep)).all();
    String children = Renderer.write(unchecked, Renderer.Format.YAML);
    InstallTools.Run run =
        Kubectl.run(
            cluster,
            "apply",
            "--dry-run=server",
            "-f",
            Kubectl.file("children", children).toString());
    assertThat(run.exitCode())
        .as("%s: the server refuses the children: %s", what, run.describe())
        .isNotZero();
    assertThat(run.stderr()).as(what).contains(childMessage);

    Renderer.Result r = Renderer.render(stored, what, Renderer.Format.YAML);
    assertThat(r).as(what).isInstanceOf(Renderer.Result.Rejected.class);
    assertThat(((Renderer.Result.Rejected) r).message()).as(what).contains(specField);
  }

  // ------------------------------------------------------------------ helpers

  /** {@code kubectl apply} of the resource in this class's namespace; the stored YAML. */
  private String storeAndRead(Map<String, Object> resource) {
    String name = String.valueOf(SampleBreaches.metadata(resource).get("name"));
    InstallTools.Run apply =
        Kubectl.run(
            cluster,
            "apply",
            "-f",
            Kubectl.file("idep", Kubectl.inNamespace(resource, ns)).toString());
    assertThat(apply.exitCode()).as(apply.describe()).isZero();
    return Kubectl.ok(cluster, "-n", ns, "get", "idep", name, "-o", "yaml").stdout();
  }

  /** Adds the kinds of a multi-document YAML to {@code out}. */
  private static void addKinds(String yaml, Set<String> out) {
    for (String doc : yaml.split("(?m)^---$")) {
      if (!doc.isBlank()) {
        out.add(String.valueOf(SampleBreaches.parse(doc).get("kind")));
      }
    }
  }
}
