package io.infera.operator.validation;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * The API server's own checks of the pod fields a spec copies into its children verbatim (env,
 * nodeSelector, tolerations, the NATS storage class). The CRD types them but does not check them;
 * without these the operator would build a Deployment or StatefulSet the server refuses on every
 * reconcile. Messages name the spec field, not the child's.
 */
final class PodFields {

  private static final Pattern LABEL_NAME =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  private static final Pattern DNS_1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Set<String> EFFECTS = Set.of("NoSchedule", "PreferNoSchedule", "NoExecute");

  private PodFields() {}

  /** A label key: {@code [prefix/]name}, the prefix a DNS subdomain, the name at most 63. */
  static boolean isLabelKey(String key) {
    if (key == null || key.isEmpty()) {
      return false;
    }
    int slash = key.indexOf('/');
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (slash >= 0 && !isDnsSubdomain(key.substring(0, slash))) {
      return false;
    }
    return name.length() <= 63 && LABEL_NAME.matcher(name).matches();
  }

  /** A label value: empty, or at most 63 alphanumerics, '-', '_', '.' inside. */
  static boolean isLabelValue(String value) {
    return value != null && value.length() <= 63 && LABEL_VALUE.matcher(value).matches();
  }

  static boolean isDnsSubdomain(String s) {
    return s != null && s.length() <= 253 && DNS_1123_SUBDOMAIN.matcher(s).matches();
  }

  /** An env entry's valueFrom: exactly one source with its required keys, and no value beside. */
  static void envSource(String f, EnvVar e, BiConsumer<String, String> add) {
    EnvVarSource s = e.getValueFrom();
    if (s == null) {
      return;
    }
    if (e.getValue() != null && !e.getValue().isEmpty()) {
      add.accept(f + ".valueFrom", "set value or valueFrom, not both");
    }
    int sources =
        count(
            s.getFieldRef(),
            s.getResourceFieldRef(),
            s.getConfigMapKeyRef(),
            s.getSecretKeyRef(),
            s.getFileKeyRef());
    if (sources != 1) {
      add.accept(
          f + ".valueFrom",
          (sources == 0 ? "names no source" : "names " + sources + " sources")
              + ": exactly one of fieldRef, resourceFieldRef, configMapKeyRef, secretKeyRef or"
              + " fileKeyRef");
      return;
    }
    if (s.getSecretKeyRef() != null) {
      required(f + ".valueFrom.secretKeyRef.key", s.getSecretKeyRef().getKey(), add);
    }
    if (s.getConfigMapKeyRef() != null) {
      required(f + ".valueFrom.configMapKeyRef.key", s.getConfigMapKeyRef().getKey(), add);
    }
    if (s.getFieldRef() != null) {
      required(f + ".valueFrom.fieldRef.fieldPath", s.getFieldRef().getFieldPath(), add);
    }
    if (s.getResourceFieldRef() != null) {
      required(
          f + ".valueFrom.resourceFieldRef.resource", s.getResourceFieldRef().getResource(), add);
    }
    if (s.getFileKeyRef() != null) {
      required(f + ".valueFrom.fileKeyRef.path", s.getFileKeyRef().getPath(), add);
      required(f + ".valueFrom.fileKeyRef.volumeName", s.getFileKeyRef().getVolumeName(), add);
      required(f + ".valueFrom.fileKeyRef.key", s.getFileKeyRef().getKey(), add);
    }
  }

  /** Node labels a pod selects on: label keys and label values. */
  static void nodeSelector(String f, Map<String, String> selector, BiConsumer<String, String> add) {
    selector.forEach(
        (k, v) -> {
          if (k != null && !k.isEmpty() && !isLabelKey(k)) {
            add.accept(
                f, "'" + k + "' is not a label key ([prefix/]name, name at most 63 characters)");
          }
          if (v != null && !isLabelValue(v)) {
            add.accept(
                f,
                "the value of '"
                    + k
                    + "', '"
                    + v
                    + "', is not a label value (at most 63 letters, digits, '-', '_', '.')");
          }
        });
  }

  /** A toleration as the API server checks it in a pod template. */
  static void toleration(String f, Toleration t, BiConsumer<String, String> add) {
    String key = t.getKey() == null ? "" : t.getKey();
    String op = t.getOperator() == null ? "" : t.getOperator();
    String value = t.getValue() == null ? "" : t.getValue();
    String effect = t.getEffect() == null ? "" : t.getEffect();
    if (!key.isEmpty() && !isLabelKey(key)) {
      add.accept(f + ".key", "'" + key + "' is not a label key");
    }
    switch (op) {
      case "", "Equal" -> {
        if (key.isEmpty()) {
          add.accept(f + ".operator", "must be Exists when key is empty (match every taint)");
        }
        if (!isLabelValue(value)) {
          add.accept(f + ".value", "'" + value + "' is not a label value");
        }
      }
      case "Exists" -> {
        if (!value.isEmpty()) {
          add.accept(f + ".value", "must be empty when operator is Exists");
        }
      }
      default -> add.accept(f + ".operator", "expected Equal or Exists, got '" + op + "'");
    }
    if (!effect.isEmpty() && !EFFECTS.contains(effect)) {
      add.accept(
          f + ".effect",
          "expected NoSchedule, PreferNoSchedule or NoExecute, got '" + effect + "'");
    }
    if (t.getTolerationSeconds() != null && !effect.equals("NoExecute")) {
      add.accept(f + ".tolerationSeconds", "applies to effect NoExecute only");
    }
  }

  private static void required(String f, String v, BiConsumer<String, String> add) {
    if (v == null || v.isEmpty()) {
      add.accept(f, "required");
    }
  }

  private static int count(Object... refs) {
    int n = 0;
    for (Object r : refs) {
      if (r != null) {
        n++;
      }
    }
    return n;
  }
}
