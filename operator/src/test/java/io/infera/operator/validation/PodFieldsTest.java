package io.infera.operator.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The pod-template checks of the API server, as the operator applies them to the spec's env,
 * nodeSelector, tolerations and storage class (RenderDryRunIT shows the server refusing each breach
 * in a child).
 */
class PodFieldsTest {

  private static List<String> env(EnvVar e) {
    List<String> out = new ArrayList<>();
    PodFields.envSource("env[0]", e, (f, m) -> out.add(f + ": " + m));
    return out;
  }

  private static List<String> toleration(Toleration t) {
    List<String> out = new ArrayList<>();
    PodFields.toleration("t", t, (f, m) -> out.add(f + ": " + m));
    return out;
  }

  @Test
  void envSources() {
    assertThat(env(new EnvVarBuilder().withName("A").withValue("v").build())).isEmpty();
    assertThat(
            env(
                new EnvVarBuilder()
                    .withName("A")
                    .withNewValueFrom()
                    .withNewSecretKeyRef()
                    .withName("s")
                    .withKey("k")
                    .endSecretKeyRef()
                    .endValueFrom()
                    .build()))
        .isEmpty();
    assertThat(env(new EnvVarBuilder().withName("A").withNewValueFrom().endValueFrom().build()))
        .singleElement()
        .asString()
        .startsWith("env[0].valueFrom: names no source");
    assertThat(
            env(
                new EnvVarBuilder()
                    .withName("A")
                    .withNewValueFrom()
                    .withNewFieldRef()
                    .withFieldPath("metadata.name")
                    .endFieldRef()
                    .withNewSecretKeyRef()
                    .withName("s")
                    .withKey("k")
                    .endSecretKeyRef()
                    .endValueFrom()
                    .build()))
        .singleElement()
        .asString()
        .startsWith("env[0].valueFrom: names 2 sources");
    assertThat(
            env(
                new EnvVarBuilder()
                    .withName("A")
                    .withValue("v")
                    .withNewValueFrom()
                    .withNewFieldRef()
                    .withFieldPath("metadata.name")
                    .endFieldRef()
                    .endValueFrom()
                    .build()))
        .containsExactly("env[0].valueFrom: set value or valueFrom, not both");
    assertThat(
            env(
                new EnvVarBuilder()
                    .withName("A")
                    .withNewValueFrom()
                    .withNewConfigMapKeyRef()
                    .withName("c")
                    .endConfigMapKeyRef()
                    .endValueFrom()
                    .build()))
        .containsExactly("env[0].valueFrom.configMapKeyRef.key: required");
  }

  static Stream<Arguments> tolerations() {
    return Stream.of(
        Arguments.of(new TolerationBuilder().withKey("k").withOperator("Exists").build(), ""),
        Arguments.of(new TolerationBuilder().withOperator("Exists").build(), ""),
        Arguments.of(
            new TolerationBuilder()
                .withKey("nvidia.com/gpu")
                .withValue("present")
                .withEffect("NoSchedule")
                .build(),
            ""),
        Arguments.of(
            new TolerationBuilder()
                .withKey("k")
                .withEffect("NoExecute")
                .withTolerationSeconds(30L)
                .build(),
            ""),
        Arguments.of(new TolerationBuilder().withValue("v").build(), "t.operator: must be Exists"),
        Arguments.of(
            new TolerationBuilder().withKey("k").withOperator("In").build(),
            "t.operator: expected Equal or Exists, got 'In'"),
        Arguments.of(
            new TolerationBuilder().withKey("k").withOperator("Exists").withValue("v").build(),
            "t.value: must be empty"),
        Arguments.of(
            new TolerationBuilder().withKey("k").withValue("not a label!").build(),
            "t.value: 'not a label!'"),
        Arguments.of(
            new TolerationBuilder().withKey("k").withEffect("NoRun").build(),
            "t.effect: expected NoSchedule"),
        Arguments.of(
            new TolerationBuilder().withKey("k").withTolerationSeconds(5L).build(),
            "t.tolerationSeconds: applies to effect NoExecute only"),
        Arguments.of(
            new TolerationBuilder().withKey("bad key!").withOperator("Exists").build(),
            "t.key: 'bad key!'"));
  }

  @ParameterizedTest
  @MethodSource("tolerations")
  void tolerationsAsTheServerChecksThem(Toleration t, String expected) {
    if (expected.isEmpty()) {
      assertThat(toleration(t)).isEmpty();
    } else {
      assertThat(toleration(t)).singleElement().asString().startsWith(expected);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"gpu", "nvidia.com/gpu.product", "a", "x_y.z-1", "kubernetes.io/hostname"})
  void labelKeys(String key) {
    assertThat(PodFields.isLabelKey(key)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "bad key!",
        "-a",
        "a-",
        "/a",
        "a/",
        "UPPER.example/x",
        "a/b/c",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      })
  void notLabelKeys(String key) {
    assertThat(PodFields.isLabelKey(key)).isFalse();
  }

  @Test
  void labelValuesAndStorageClasses() {
    assertThat(PodFields.isLabelValue("")).isTrue();
    assertThat(PodFields.isLabelValue("NVIDIA-L40S")).isTrue();
    assertThat(PodFields.isLabelValue("a".repeat(64))).isFalse();
    assertThat(PodFields.isLabelValue("bad value!")).isFalse();
    assertThat(PodFields.isDnsSubdomain("fast-ssd.example.com")).isTrue();
    assertThat(PodFields.isDnsSubdomain("Fast_SSD")).isFalse();
    assertThat(PodFields.isDnsSubdomain("a".repeat(254))).isFalse();
  }

  @Test
  void nodeSelectorNamesTheOffendingKey() {
    List<String> out = new ArrayList<>();
    PodFields.nodeSelector(
        "spec.pools[0].nodeSelector",
        Map.of("ok", "fine", "bad key!", "x"),
        (f, m) -> out.add(f + ": " + m));
    assertThat(out).singleElement().asString().contains("'bad key!' is not a label key");
  }

  /** Hostile keys (any string) never throw, and an accepted key has the shape the server wants. */
  @Property(tries = 500)
  void anyStringIsJudgedWithoutThrowing(@ForAll String key) {
    if (PodFields.isLabelKey(key)) {
      assertThat(key).matches("([a-z0-9.-]{1,253}/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?");
    }
    PodFields.isLabelValue(key);
    PodFields.isDnsSubdomain(key);
    PodFields.toleration(
        "t",
        new TolerationBuilder().withKey(key).withValue(key).withOperator(key).build(),
        (f, m) -> {});
  }
}
