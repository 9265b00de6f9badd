import io.infera.router.config.ConfigException;
import io.infera.router.config.ConfigLoader;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Run by build/upgrade-fixtures.sh on the classpath of a previous release's router jar (a
 * single-file program, `java -cp infera-router.jar PreviousRouter.java ...`): what that router
 * accepts and what it makes of each RouterConfig. Uses only API every release has had
 * (ConfigLoader.parse, the RouterConfig records).
 *
 * <p>Arguments: reference.yaml, the key-list output file, the settings output directory, then the
 * RouterConfig files.
 */
public class PreviousRouter {
  public static void main(String[] args) throws Exception {
    // Optional keys are shown commented out ("# key: value"); uncomment them, leave prose alone.
    String text =
        Files.readString(Path.of(args[0])).replaceAll("(?m)^(\\s*)# ([A-Za-z]+: )", "$1$2");
    ConfigLoader.parse(text);
    TreeSet<String> keys = new TreeSet<>();
    walk("", new Yaml().load(text), keys);
    try {
      ConfigLoader.parse(text + "\nnotAKeyOfThisRelease: 1\n");
      throw new IllegalStateException("the previous loader accepted an unknown key");
    } catch (ConfigException expected) {
      // strict, as that release is
    }
    Files.writeString(Path.of(args[1]), String.join("\n", keys) + "\n");
    DumperOptions o = new DumperOptions();
    o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    for (int i = 3; i < args.length; i++) {
      Path config = Path.of(args[i]);
      Object settings = tree(ConfigLoader.parse(Files.readString(config)));
      Files.writeString(
          Path.of(args[2], config.getFileName().toString()),
          "# What the previous router made of ../routerconfig/"
              + config.getFileName()
              + " (its RouterConfig record, component by component).\n"
              + new Yaml(o).dump(settings));
    }
  }

  /** A record as a map of its components (recursively), enums by name. */
  static Object tree(Object v) throws Exception {
    if (v instanceof Record r) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (RecordComponent c : r.getClass().getRecordComponents()) {
        m.put(c.getName(), tree(c.getAccessor().invoke(r)));
      }
      return m;
    }
    if (v instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      for (Object item : l) {
        out.add(tree(item));
      }
      return out;
    }
    if (v instanceof Enum<?> e) {
      return e.name();
    }
    return v;
  }

  /** Every key path of a document; a list item's keys as {@code list[].key}. */
  static void walk(String path, Object node, TreeSet<String> keys) {
    if (node instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        String p = path + e.getKey();
        keys.add(p);
        walk(p + ".", e.getValue(), keys);
      }
    } else if (node instanceof List<?> l) {
      String p = path.substring(0, path.length() - 1) + "[].";
      for (Object item : l) {
        walk(p, item, keys);
      }
    }
  }
}
