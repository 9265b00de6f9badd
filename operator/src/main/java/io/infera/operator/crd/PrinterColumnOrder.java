package io.infera.operator.crd;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Puts the CRD's printer columns in the order {@link InferaDeployment} declares them (PHASE,
 * ROUTERS, WORKERS, HIT%, AGE): fabric8's generator sorts them by JSON path, which would put AGE
 * first. Drops {@code priority: 0} (the default, which the API server omits when it stores the
 * CRD): a column list that differs from the stored one makes the atomic {@code spec.versions} list
 * a conflict for a server-side apply over a client-side one ({@code kubectl apply --server-side},
 * Helm 4). Rewrites the generated file in place, keeping its header comment.
 */
public final class PrinterColumnOrder {

  private PrinterColumnOrder() {}

  /** {@code args[0]}: the generated CRD file. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: PrinterColumnOrder <generated CRD file>");
    }
    Path file = Path.of(args[0]);
    String text = Files.readString(file, StandardCharsets.UTF_8);
    Files.writeString(file, reorder(text), StandardCharsets.UTF_8);
  }

  /** The column names in declaration order. */
  public static List<String> declaredOrder() {
    return Arrays.stream(InferaDeployment.class.getAnnotationsByType(AdditionalPrinterColumn.class))
        .map(AdditionalPrinterColumn::name)
        .toList();
  }

  /** {@code crdYaml} with each version's printer columns in {@link #declaredOrder()}. */
  public static String reorder(String crdYaml) {
    StringBuilder header = new StringBuilder();
    for (String line : crdYaml.split("\n", -1)) {
      if (!line.startsWith("#")) {
        break;
      }
      header.append(line).append('\n');
    }
    CustomResourceDefinition crd = Serialization.unmarshal(crdYaml, CustomResourceDefinition.class);
    List<String> order = declaredOrder();
    for (CustomResourceDefinitionVersion v : crd.getSpec().getVersions()) {
      List<CustomResourceColumnDefinition> cols = new ArrayList<>(v.getAdditionalPrinterColumns());
      cols.sort(
          Comparator.comparingInt(
              c -> order.indexOf(c.getName()) < 0 ? order.size() : order.indexOf(c.getName())));
      for (CustomResourceColumnDefinition c : cols) {
        if (c.getPriority() != null && c.getPriority() == 0) {
          c.setPriority(null);
        }
      }
      v.setAdditionalPrinterColumns(cols);
    }
    String body = Serialization.asYaml(crd);
    if (body.startsWith("---\n")) {
      body = body.substring(4);
    }
    return header + body;
  }
}
