package io.infera.operator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.generator.annotation.Default;
import java.lang.reflect.Field;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every {@code @Default} of the CRD is also the field's initializer, so a resource read without
 * API-server defaulting (render, the mock server) means the same as one read from a cluster.
 */
class DefaultsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void everyCrdDefaultIsTheFieldInitializer() throws Exception {
    List<Class<?>> model =
        List.of(
            InferaDeploymentSpec.class,
            RouterSpec.class,
            TokenizerSpec.class,
            ComputeResources.class,
            NatsSpec.class,
            NatsDeploySpec.class,
            PoolSpec.class,
            PoolResources.class);
    int checked = 0;
    for (Class<?> type : model) {
      Object fresh = type.getDeclaredConstructor().newInstance();
      for (Field f : type.getDeclaredFields()) {
        Default d = f.getAnnotation(Default.class);
        if (d == null) {
          continue;
        }
        f.setAccessible(true);
        Object initial = f.get(fresh);
        String what = type.getSimpleName() + "." + f.getName();
        assertThat(initial).as(what).isNotNull();
        JsonNode expected = parse(d.value());
        JsonNode actual = JSON.valueToTree(initial);
        if (actual.isTextual()) {
          assertThat(actual.asText()).as(what).isEqualTo(d.value());
        } else if (expected.isObject()) {
          assertThat(actual.isObject()).as(what).isTrue();
        } else if (expected.isNumber()) {
          assertThat(actual.decimalValue()).as(what).isEqualByComparingTo(expected.decimalValue());
        } else {
          assertThat(actual.asText()).as(what).isEqualTo(expected.asText());
        }
        checked++;
      }
    }
    assertThat(checked).isGreaterThanOrEqualTo(12);
  }

  private static JsonNode parse(String value) {
    try {
      return JSON.readTree(value);
    } catch (Exception e) {
      return JSON.getNodeFactory().textNode(value);
    }
  }
}
