package io.infera.operator.render;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Reads one {@code InferaDeployment} from YAML (or JSON) as strictly as the API server would:
 * unknown fields, duplicate keys and scalars of the wrong type are refused. Explicit nulls take the
 * field's default, as the API server's pruning and defaulting do; integral floats ({@code 16.0})
 * are integers, as they are once kubectl has sent them.
 */
public final class ResourceParser {

  /** A file that is not one well-formed InferaDeployment; the message is one line. */
  public static final class ParseException extends Exception {
    private static final long serialVersionUID = 1L;

    public ParseException(String message) {
      super(message);
    }
  }

  private static final int MAX_CHARS = 4 * 1024 * 1024;

  private static final ObjectMapper YAML =
      configure(
          YAMLMapper.builder(yamlFactory())
              .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
              .build());

  /** For binding the parsed tree (YAML and JSON trees are the same). */
  private static final ObjectMapper BINDER =
      configure(JsonMapper.builder().disable(MapperFeature.ALLOW_COERCION_OF_SCALARS).build());

  private ResourceParser() {}

  private static YAMLFactory yamlFactory() {
    YAMLFactory f =
        YAMLFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder().maxDocumentLength(MAX_CHARS).build())
            .build();
    f.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    return f;
  }

  private static ObjectMapper configure(ObjectMapper m) {
    m.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    m.configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true);
    m.configure(DeserializationFeature.ACCEPT_FLOAT_AS_INT, false);
    m.configure(JsonParser.Feature.STRICT_DUPLICATE_DETECTION, true);
    m.setDefaultSetterInfo(JsonSetter.Value.forValueNulls(Nulls.SKIP));
    // A string field given a number or boolean is refused, as by the API server's schema.
    m.coercionConfigFor(LogicalType.Textual)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    return m;
  }

  /** Parses {@code text}; {@code source} names it in messages (a file name). */
  public static InferaDeployment parse(String text, String source) throws ParseException {
    if (text.length() > MAX_CHARS) {
      throw new ParseException(source + ": larger than " + MAX_CHARS + " characters");
    }
    List<JsonNode> docs = new ArrayList<>();
    // Document by document (a MappingIterator would unwrap a top-level list into "documents").
    try (JsonParser p = YAML.getFactory().createParser(text)) {
      while (p.nextToken() != null) {
        JsonNode doc = YAML.readTree(p);
        if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
          docs.add(doc);
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new ParseException(source + ": invalid YAML: " + describe(e));
    }
    if (docs.isEmpty()) {
      throw new ParseException(source + ": no InferaDeployment in the file (it is empty)");
    }
    if (docs.size() > 1) {
      throw new ParseException(
          source + ": expected one InferaDeployment, found " + docs.size() + " YAML documents");
    }
    JsonNode doc = docs.get(0);
    if (!doc.isObject()) {
      throw new ParseException(
          source + ": expected a mapping (an InferaDeployment), got a " + nodeType(doc));
    }
    doc = integralNumbersAsIntegers(doc);
    expect(doc, "apiVersion", InferaDeployment.API_VERSION, source);
    expect(doc, "kind", InferaDeployment.KIND, source);
    InferaDeployment idep;
    try {
      idep = BINDER.treeToValue(doc, InferaDeployment.class);
    } catch (JsonProcessingException | RuntimeException e) {
      throw new ParseException(source + ": " + describe(e, doc));
    }
    Optional<String> unknown =
        UnknownFields.find(BINDER, doc, BINDER.constructType(InferaDeployment.class));
    if (unknown.isPresent()) {
      throw new ParseException(source + ": " + unknown.get());
    }
    return idep;
  }

  /** Beyond this a double no longer holds every integer exactly. */
  private static final double MAX_EXACT_INTEGER = 9007199254740992.0;

  /**
   * {@code 16.0} and {@code 1e2} as the integers they are: kubectl turns YAML into JSON with Go's
   * encoder, which writes an integral float without a fraction, so the API server stores {@code
   * pageSize: 16.0} as 16 and admits it as an integer; {@code 1.5} stays a float and is refused.
   */
  static JsonNode integralNumbersAsIntegers(JsonNode node) {
    if (node.isFloatingPointNumber()) {
      double d = node.doubleValue();
      if (Double.isFinite(d) && d == Math.rint(d) && Math.abs(d) <= MAX_EXACT_INTEGER) {
        return com.fasterxml.jackson.databind.node.LongNode.valueOf((long) d);
      }
      return node;
    }
    if (node instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
      o.properties().forEach(e -> e.setValue(integralNumbersAsIntegers(e.getValue())));
    } else if (node instanceof com.fasterxml.jackson.databind.node.ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        a.set(i, integralNumbersAsIntegers(a.get(i)));
      }
    }
    return node;
  }

  private static void expect(JsonNode doc, String field, String value, String source)
      throws ParseException {
    JsonNode v = doc.get(field);
    if (v == null || v.isNull()) {
      throw new ParseException(source + ": " + field + ": required (" + value + ")");
    }
    if (!v.isTextual() || !v.asText().equals(value)) {
      throw new ParseException(
          source + ": " + field + ": expected " + value + ", got " + oneLine(v.toString()));
    }
  }

  /** Like {@link #describe(Throwable)}, quoting the offending input value from {@code doc}. */
  static String describe(Throwable e, JsonNode doc) {
    if (e instanceof MismatchedInputException m
        && !(e instanceof InvalidFormatException)
        && !(e instanceof UnrecognizedPropertyException)
        && m.getTargetType() != null) {
      JsonNode at = doc;
      for (JsonMappingException.Reference r : m.getPath()) {
        at =
            at == null
                ? null
                : r.getFieldName() != null ? at.get(r.getFieldName()) : at.get(r.getIndex());
      }
      return path(m, false)
          + ": expected "
          + typeName(m.getTargetType())
          + (at == null ? "" : ", got " + describeNode(at));
    }
    return describe(e);
  }

  private static String describeNode(JsonNode n) {
    if (n.isObject()) {
      return "a mapping";
    }
    if (n.isArray()) {
      return "a list";
    }
    if (n.isTextual()) {
      return "the string " + oneLine(n.toString());
    }
    return oneLine(n.toString());
  }

  /** One line: the field path and what is wrong with it, never a stack trace. */
  static String describe(Throwable e) {
    if (e instanceof UnrecognizedPropertyException u) {
      String known =
          u.getKnownPropertyIds() == null
              ? ""
              : " (expected one of "
                  + u.getKnownPropertyIds().stream()
                      .map(String::valueOf)
                      .sorted()
                      .collect(Collectors.joining(", "))
                  + ")";
      return path(u, true) + ": unknown field" + known;
    }
    if (e instanceof InvalidFormatException f) {
      return path(f, false)
          + ": expected "
          + typeName(f.getTargetType())
          + ", got "
          + oneLine(String.valueOf(f.getValue()));
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      return path(m, false)
          + ": expected "
          + typeName(m.getTargetType())
          + " ("
          + firstLine(m)
          + ")";
    }
    if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
      return path(m, false) + ": " + firstLine(m);
    }
    if (e instanceof JsonProcessingException p) {
      JsonLocation loc = p.getLocation();
      String at =
          loc == null || loc.getLineNr() < 0
              ? ""
              : "line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ": ";
      return at + firstLine(p);
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return oneLine(root.getMessage() == null ? root.toString() : root.getMessage());
  }

  private static String path(JsonMappingException e, boolean dropLast) {
    List<JsonMappingException.Reference> refs = e.getPath();
    int n = dropLast ? refs.size() - 1 : refs.size();
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      JsonMappingException.Reference r = refs.get(i);
      if (r.getFieldName() != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    if (dropLast && !refs.isEmpty() && refs.get(refs.size() - 1).getFieldName() != null) {
      String last = refs.get(refs.size() - 1).getFieldName();
      return (sb.length() == 0 ? "" : sb + ".") + last;
    }
    return sb.length() == 0 ? "(document)" : sb.toString();
  }

  private static String typeName(Class<?> type) {
    if (type == null) {
      return "a value";
    }
    if (type == String.class) {
      return "a string (quote numbers and booleans)";
    }
    if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
      return "an integer";
    }
    if (type == Double.class || type == double.class) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type.isEnum()) {
      List<String> names = new ArrayList<>();
      for (Object c : type.getEnumConstants()) {
        names.add(enumName(type, c));
      }
      return "one of " + String.join(", ", names);
    }
    if (List.class.isAssignableFrom(type)) {
      return "a list";
    }
    if (java.util.Map.class.isAssignableFrom(type) || type.getName().startsWith("io.infera")) {
      return "a mapping";
    }
    return "a " + type.getSimpleName().toLowerCase(Locale.ROOT);
  }

  private static String enumName(Class<?> type, Object constant) {
    try {
      com.fasterxml.jackson.annotation.JsonProperty p =
          type.getField(((Enum<?>) constant).name())
              .getAnnotation(com.fasterxml.jackson.annotation.JsonProperty.class);
      return p != null ? p.value() : ((Enum<?>) constant).name();
    } catch (NoSuchFieldException e) {
      return ((Enum<?>) constant).name();
    }
  }

  private static String nodeType(JsonNode n) {
    return n.isArray() ? "list" : n.isTextual() ? "string" : n.isNumber() ? "number" : "scalar";
  }

  private static String firstLine(JsonProcessingException e) {
    String m = e.getOriginalMessage();
    return oneLine(m == null ? e.getClass().getSimpleName() : m);
  }

  static String oneLine(String s) {
    String line = s.replaceAll("\\s*\\R\\s*", " ").strip();
    return line.length() > 300 ? line.substring(0, 297) + "..." : line;
  }
}
