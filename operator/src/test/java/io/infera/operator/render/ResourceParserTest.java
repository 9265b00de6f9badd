package io.infera.operator.render;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.PoolRole;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Malformed InferaDeployment YAML is refused with one line naming what and where. */
class ResourceParserTest {

  private static final String HEAD =
      "apiVersion: infera.io/v1alpha1\nkind: InferaDeployment\nmetadata: {name: demo}\n";

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          empty file                 | ''                                                    | it is empty
          only a comment             | '# nothing'                                           | it is empty
          a list                     | '- a\\n- b'                                            | expected a mapping
          a scalar                   | 'hello'                                               | expected a mapping
          two documents              | '$HEAD spec: {model: m}\\n---\\n$HEAD'                 | found 2 YAML documents
          unclosed flow              | '$HEAD spec: {model: m'                               | invalid YAML
          bad indentation            | '$HEAD spec:\\n  model: m\\n bad: 1'                   | invalid YAML
          tab indentation            | '$HEAD spec:\\n\\tmodel: m'                            | invalid YAML
          duplicate key              | '$HEAD spec: {model: m, model: n}'                    | invalid YAML
          missing apiVersion         | 'kind: InferaDeployment\\nspec: {}'                   | apiVersion: required
          wrong apiVersion           | 'apiVersion: infera.io/v1\\nkind: InferaDeployment'   | apiVersion: expected infera.io/v1alpha1
          wrong kind                 | 'apiVersion: infera.io/v1alpha1\\nkind: Deployment'   | kind: expected InferaDeployment
          unknown top-level field    | '$HEAD spek: {}'                                      | spek: unknown field
          unknown spec field         | '$HEAD spec: {model: m, pagesize: 16}'                | spec.pagesize: unknown field
          unknown pool field         | '$HEAD spec: {model: m, pools: [{name: a, gpu: 1}]}'  | spec.pools[0].gpu: unknown field
          string for integer         | '$HEAD spec: {model: m, pageSize: "16"}'              | spec.pageSize: expected an integer
          float for integer          | '$HEAD spec: {model: m, pageSize: 1.5}'               | spec.pageSize: expected an integer
          number for string          | '$HEAD spec: {model: m, pythonHashSeed: 0}'           | spec.pythonHashSeed: expected a string
          boolean for string         | '$HEAD spec: {model: true}'                           | spec.model: expected a string
          unknown engine             | '$HEAD spec: {model: m, engine: tpu}'                 | spec.engine: expected one of vllm, sglang, atom, sim
          unknown role               | '$HEAD spec: {model: m, pools: [{name: a, role: x}]}' | spec.pools[0].role: expected one of mixed, prefill, decode
          list for mapping           | '$HEAD spec: {model: m, router: [1]}'                 | spec.router: expected a mapping
          mapping for list           | '$HEAD spec: {model: m, pools: {name: a}}'            | spec.pools: expected a list, got a mapping
          quoted integer value       | '$HEAD spec: {model: m, router: {replicas: "2"}}'     | spec.router.replicas: expected an integer, got the string "2"
          unknown metadata field     | 'apiVersion: infera.io/v1alpha1\nkind: InferaDeployment\nmetadata: {nmae: x}' | metadata.nmae: unknown field
          unknown toleration field   | '$HEAD spec: {model: m, pools: [{name: a, tolerations: [{key: k, foo: 1}]}]}' | spec.pools[0].tolerations[0].foo: unknown field
          unknown env ref field      | '$HEAD spec: {model: m, pools: [{name: a, env: [{name: X, valueFrom: {secretKeyRef: {nme: s}}}]}]}' | spec.pools[0].env[0].valueFrom.secretKeyRef.nme: unknown field
          fraction for a quantity    | '$HEAD spec: {model: m, pools: [{name: a, resources: {cpu: 1.5}}]}' | spec.pools[0].resources.cpu: expected an integer or a string
          number in node selector    | '$HEAD spec: {model: m, pools: [{name: a, nodeSelector: {zone: 1}}]}' | spec.pools[0].nodeSelector.zone: expected a string
          """)
  void malformedInputIsRefusedWithOneLine(String name, String yaml, String expected) {
    String text = yaml.replace("$HEAD ", HEAD).replace("\\n", "\n").replace("\\t", "\t");
    assertThatThrownBy(() -> ResourceParser.parse(text, "idep.yaml"))
        .as(name)
        .isInstanceOf(ResourceParser.ParseException.class)
        .satisfies(
            e -> {
              assertThat(e.getMessage()).startsWith("idep.yaml: ").contains(expected);
              assertThat(e.getMessage()).doesNotContain("\n");
            });
  }

  @Test
  void explicitNullsTakeTheDefaults() throws Exception {
    InferaDeployment idep =
        ResourceParser.parse(
            HEAD
                + "spec: {model: m, engine: null, pageSize: null, router: null,"
                + " pools: [{name: a, role: null, replicas: null}]}",
            "x");
    assertThat(idep.getSpec().getEngine()).isEqualTo(Engine.VLLM);
    assertThat(idep.getSpec().getPageSize()).isEqualTo(16);
    assertThat(idep.getSpec().getRouter().getReplicas()).isEqualTo(2);
    assertThat(idep.getSpec().getPools().get(0).getRole()).isEqualTo(PoolRole.MIXED);
    assertThat(idep.getSpec().getPools().get(0).getReplicas()).isEqualTo(1);
  }

  /** kubectl sends {@code 16.0} as 16 and the API server stores it: so does the parser. */
  @Test
  void integralFloatsAreIntegersAsTheServerStoresThem() throws Exception {
    InferaDeployment idep =
        ResourceParser.parse(
            HEAD
                + "spec: {model: m, pageSize: 16.0, router: {replicas: 1e1, overlapWeight: 2.0},"
                + " pools: [{name: a, replicas: 2.0}]}",
            "x");
    assertThat(idep.getSpec().getPageSize()).isEqualTo(16);
    assertThat(idep.getSpec().getRouter().getReplicas()).isEqualTo(10);
    assertThat(idep.getSpec().getRouter().getOverlapWeight()).isEqualTo(2.0);
    assertThat(idep.getSpec().getPools().get(0).getReplicas()).isEqualTo(2);
    for (String bad : new String[] {"16.5", "1e400", "1e30", "-16.000001"}) {
      assertThatThrownBy(
              () -> ResourceParser.parse(HEAD + "spec: {model: m, pageSize: " + bad + "}", "x"))
          .as(bad)
          .isInstanceOf(ResourceParser.ParseException.class)
          .hasMessageContaining("spec.pageSize");
    }
  }

  @Test
  void quantitiesMayBeNumbersOrStrings() throws Exception {
    InferaDeployment idep =
        ResourceParser.parse(
            HEAD + "spec: {model: m, pools: [{name: a, resources: {cpu: 4, memory: 16Gi}}]}", "x");
    assertThat(idep.getSpec().getPools().get(0).getResources().getCpu().toString()).isEqualTo("4");
  }

  @Test
  void jsonIsYamlToo() throws Exception {
    InferaDeployment idep =
        ResourceParser.parse(
            "{\"apiVersion\":\"infera.io/v1alpha1\",\"kind\":\"InferaDeployment\","
                + "\"metadata\":{\"name\":\"d\"},\"spec\":{\"model\":\"m\",\"pools\":[{\"name\":\"a\"}]}}",
            "x");
    assertThat(idep.getMetadata().getName()).isEqualTo("d");
  }

  @Test
  void statusInTheFileIsAccepted() throws Exception {
    InferaDeployment idep =
        ResourceParser.parse(HEAD + "spec: {model: m}\nstatus: {phase: Ready}", "x");
    assertThat(idep.getStatus().getPhase()).isNotNull();
  }
}
