package io.infera.operator.render;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Finds a field the Java model does not declare, anywhere in a document. Jackson refuses unknown
 * fields of Infera's own classes, but the embedded Kubernetes types (metadata, env, tolerations)
 * keep them in an "additional properties" map; the API server's strict field validation refuses
 * them, so {@code render} does too. Also finds an unquoted fraction where the CRD says
 * int-or-string (a quantity), which the server refuses and fabric8's quantity reader would take.
 */
final class UnknownFields {

  private UnknownFields() {}

  /**
   * The first unknown field as {@code path: unknown field (expected one of …)}, or unquoted
   * fractional quantity, if any.
   */
  static Optional<String> find(ObjectMapper mapper, JsonNode node, JavaType type) {
    return walk(mapper, node, type, "");
  }

  private static Optional<String> walk(
      ObjectMapper mapper, JsonNode node, JavaType type, String path) {
    if (node == null || type == null) {
      return Optional.empty();
    }
    if (node.isArray() && (type.isCollectionLikeType() || type.isArrayType())) {
      for (int i = 0; i < node.size(); i++) {
        Optional<String> r = walk(mapper, node.get(i), type.getContentType(), path + "[" + i + "]");
        if (r.isPresent()) {
          return r;
        }
      }
      return Optional.empty();
    }
    if (node.isFloatingPointNumber()
        && type.getRawClass() == io.fabric8.kubernetes.api.model.Quantity.class) {
      // The CRD types quantities int-or-string: the API server refuses 1.5 unquoted.
      return Optional.of(
          path + ": expected an integer or a string (quote a fraction: \"" + node.asText() + "\")");
    }
    if (!node.isObject()) {
      return Optional.empty();
    }
    if (type.isMapLikeType()) {
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        Optional<String> r =
            walk(mapper, e.getValue(), type.getContentType(), join(path, e.getKey()));
        if (r.isPresent()) {
          return r;
        }
      }
      return Optional.empty();
    }
    Class<?> raw = type.getRawClass();
    if (!isBean(raw)) {
      return Optional.empty();
    }
    BeanDescription bean = mapper.getDeserializationConfig().introspect(type);
    Set<String> known = new TreeSet<>();
    for (BeanPropertyDefinition p : bean.findProperties()) {
      known.add(p.getName());
    }
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      String child = join(path, e.getKey());
      BeanPropertyDefinition prop =
          bean.findProperties().stream()
              .filter(p -> p.getName().equals(e.getKey()))
              .findFirst()
              .orElse(null);
      if (prop == null) {
        return Optional.of(
            child + ": unknown field (expected one of " + String.join(", ", known) + ")");
      }
      Optional<String> r = walk(mapper, e.getValue(), prop.getPrimaryType(), child);
      if (r.isPresent()) {
        return r;
      }
    }
    return Optional.empty();
  }

  /** Classes whose fields are checked: plain model objects, not scalars or custom-read types. */
  private static boolean isBean(Class<?> raw) {
    if (raw.isPrimitive()
        || raw.isEnum()
        || raw.getName().startsWith("java.")
        || JsonNode.class.isAssignableFrom(raw)
        || raw.isAnnotationPresent(JsonDeserialize.class)
            && raw.getAnnotation(JsonDeserialize.class).using()
                != com.fasterxml.jackson.databind.JsonDeserializer.None.class) {
      return false;
    }
    return raw.getName().startsWith("io.fabric8.kubernetes.api.model")
        || raw.getName().startsWith("io.fabric8.kubernetes.client.CustomResource")
        || raw.getName().startsWith("io.infera.");
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }
}
