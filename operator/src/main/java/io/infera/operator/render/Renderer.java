package io.infera.operator.render;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesListBuilder;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.desired.BuildResult;
import io.infera.operator.desired.DesiredFleet;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Renders an {@code InferaDeployment} document into its children, deterministically: the same input
 * gives byte-identical output (objects in {@link io.infera.operator.desired.Fleet#ORDER}, map keys
 * sorted).
 */
public final class Renderer {

  /** {@code -o yaml}: multi-document YAML; {@code -o json}: a {@code v1 List}. */
  public enum Format {
    YAML,
    JSON
  }

  /** What {@link #render} gives: the output text, or one line saying why there is none. */
  public sealed interface Result permits Result.Rendered, Result.Rejected {
    record Rendered(String text, int objects) implements Result {}

    record Rejected(String message) implements Result {}
  }

  /** The model's annotations give property order and inclusion; map keys are sorted. */
  private static final ObjectMapper MAPPER =
      JsonMapper.builder().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

  private Renderer() {}

  /**
   * Parses, validates and builds; never throws for bad input.
   *
   * @param source names the input in messages (a file name)
   */
  public static Result render(String resourceText, String source, Format format) {
    InferaDeployment idep;
    try {
      idep = ResourceParser.parse(resourceText, source);
    } catch (ResourceParser.ParseException e) {
      return new Result.Rejected(e.getMessage());
    }
    BuildResult built = DesiredFleet.build(idep);
    if (built instanceof BuildResult.Invalid invalid) {
      return new Result.Rejected(source + ": " + invalid.reason() + ": " + invalid.message());
    }
    List<HasMetadata> all = ((BuildResult.Built) built).fleet().all();
    return new Result.Rendered(write(all, format), all.size());
  }

  /** The objects as multi-document YAML or as one JSON {@code v1 List}, in the given order. */
  public static String write(List<HasMetadata> objects, Format format) {
    if (format == Format.JSON) {
      try {
        return MAPPER
                .writerWithDefaultPrettyPrinter()
                .writeValueAsString(new KubernetesListBuilder().withItems(objects).build())
            + "\n";
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
      }
    }
    Yaml yaml = yaml();
    StringBuilder sb = new StringBuilder();
    for (HasMetadata o : objects) {
      sb.append("---\n").append(yaml.dump(MAPPER.convertValue(o, Map.class)));
    }
    return sb.toString();
  }

  /**
   * Block style, no line folding (long flags stay on one line in diffs), multi-line strings (the
   * RouterConfig) as literal blocks; strings that would read as numbers or booleans are quoted.
   */
  private static Yaml yaml() {
    DumperOptions opts = new DumperOptions();
    opts.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    opts.setIndent(2);
    opts.setIndicatorIndent(0);
    opts.setSplitLines(false);
    opts.setWidth(Integer.MAX_VALUE);
    return new Yaml(new LiteralStrings(opts), opts);
  }

  /** Represents strings with line breaks as literal blocks. */
  private static final class LiteralStrings extends Representer {
    LiteralStrings(DumperOptions opts) {
      super(opts);
      this.representers.put(
          String.class,
          data -> {
            String s = (String) data;
            return representScalar(
                Tag.STR,
                s,
                s.indexOf('\n') >= 0 ? DumperOptions.ScalarStyle.LITERAL : defaultScalarStyle);
          });
    }
  }
}
