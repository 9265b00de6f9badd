package io.infera.operator.install;

import io.infera.operator.testing.Fixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/** The repository's install files, YAML streams as plain maps, and RBAC rules as sets. */
final class InstallFiles {

  static final String CRD = "crds/inferadeployments.infera.io-v1.yml";

  private InstallFiles() {}

  static Path root() {
    return Fixtures.repoRoot();
  }

  static Path path(String relative) {
    return root().resolve(relative);
  }

  static byte[] bytes(String relative) {
    try {
      return Files.readAllBytes(path(relative));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + relative, e);
    }
  }

  static String text(String relative) {
    return new String(bytes(relative), StandardCharsets.UTF_8);
  }

  /** Every document of a YAML stream that is an object (empty documents dropped). */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> documents(String yaml) {
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(16 * 1024 * 1024);
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object doc : new Yaml(options).loadAll(yaml)) {
      if (doc == null) {
        continue;
      }
      if (!(doc instanceof Map)) {
        throw new AssertionError("a YAML document is not an object: " + doc);
      }
      out.add((Map<String, Object>) doc);
    }
    return out;
  }

  static Map<String, Object> document(String relative) {
    List<Map<String, Object>> docs = documents(text(relative));
    if (docs.size() != 1) {
      throw new AssertionError(relative + " holds " + docs.size() + " documents, expected 1");
    }
    return docs.get(0);
  }

  /** {@code o} with integral numbers as longs: {@code 1.0} and {@code 1} are the same value. */
  @SuppressWarnings("unchecked")
  static Object numbersNormalized(Object o) {
    if (o instanceof Map<?, ?> m) {
      Map<String, Object> out = new java.util.LinkedHashMap<>();
      ((Map<String, Object>) m).forEach((k, v) -> out.put(k, numbersNormalized(v)));
      return out;
    }
    if (o instanceof List<?> l) {
      return l.stream().map(InstallFiles::numbersNormalized).toList();
    }
    if (o instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) {
      return n.longValue();
    }
    return o;
  }

  static String kind(Map<String, Object> o) {
    return String.valueOf(o.get("kind"));
  }

  static String name(Map<String, Object> o) {
    return String.valueOf(map(o, "metadata").get("name"));
  }

  /** The only object of {@code kind} named like {@code name} (a suffix match), or fail. */
  static Map<String, Object> only(List<Map<String, Object>> objects, String kind) {
    List<Map<String, Object>> found = objects.stream().filter(o -> kind.equals(kind(o))).toList();
    if (found.size() != 1) {
      throw new AssertionError("expected one " + kind + ", found " + found.size());
    }
    return found.get(0);
  }

  static List<Map<String, Object>> all(List<Map<String, Object>> objects, String kind) {
    return objects.stream().filter(o -> kind.equals(kind(o))).toList();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Map<String, Object> o, String... path) {
    Object cur = o;
    for (String k : path) {
      if (!(cur instanceof Map)) {
        throw new AssertionError("no object at " + String.join(".", path) + " in " + o);
      }
      cur = ((Map<String, Object>) cur).get(k);
    }
    if (!(cur instanceof Map)) {
      throw new AssertionError("no object at " + String.join(".", path));
    }
    return (Map<String, Object>) cur;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Map<String, Object> o, String... path) {
    Object cur = o;
    for (int i = 0; i < path.length; i++) {
      cur = ((Map<String, Object>) cur).get(path[i]);
      if (cur == null) {
        throw new AssertionError("nothing at " + String.join(".", path));
      }
    }
    return (List<Object>) cur;
  }

  /**
   * A Role's or ClusterRole's rules as {@code group/resource:verb} triples (resourceNames and
   * nonResourceURLs are not used by the operator: their presence fails).
   */
  @SuppressWarnings("unchecked")
  static Set<String> permissions(Map<String, Object> role) {
    Set<String> out = new TreeSet<>();
    for (Object r : list(role, "rules")) {
      Map<String, Object> rule = (Map<String, Object>) r;
      if (rule.containsKey("resourceNames") || rule.containsKey("nonResourceURLs")) {
        throw new AssertionError("unexpected resourceNames/nonResourceURLs in " + rule);
      }
      for (Object g : (List<Object>) rule.get("apiGroups")) {
        for (Object res : (List<Object>) rule.get("resources")) {
          for (Object v : (List<Object>) rule.get("verbs")) {
            out.add(permission(String.valueOf(g), String.valueOf(res), String.valueOf(v)));
          }
        }
      }
    }
    return out;
  }

  static String permission(String group, String resource, String verb) {
    return (group.isEmpty() ? "core" : group) + "/" + resource + ":" + verb;
  }

  /** A property of the parent POM, with {@code ${project.version}} resolved. */
  static String pomProperty(String name) {
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setNamespaceAware(false);
      Document doc = f.newDocumentBuilder().parse(path("pom.xml").toFile());
      Element project = doc.getDocumentElement();
      String version = child(project, "version");
      Element props = (Element) project.getElementsByTagName("properties").item(0);
      String value = child(props, name);
      if (value == null) {
        throw new AssertionError("the parent POM has no property " + name);
      }
      Matcher m = Pattern.compile("\\$\\{project\\.version}").matcher(value);
      return m.replaceAll(Matcher.quoteReplacement(version)).strip();
    } catch (javax.xml.parsers.ParserConfigurationException
        | org.xml.sax.SAXException
        | IOException e) {
      throw new IllegalStateException("cannot read pom.xml", e);
    }
  }

  private static String child(Element parent, String tag) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(tag)) {
        return e.getTextContent();
      }
    }
    return null;
  }
}
