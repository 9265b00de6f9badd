package io.infera.operator.desired;

import io.infera.operator.api.v1alpha1.Engine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Default images, in one place; each is overridable from the spec ({@code spec.image}, a pool's
 * {@code image}, {@code spec.router.image}, {@code spec.nats.deploy.image}).
 *
 * <p>Infera's own images (router, simulator) have their CLI as entrypoint, so their containers pass
 * only {@code args}; the vLLM and SGLang containers set {@code command} explicitly, whatever the
 * image's entrypoint.
 */
public final class Images {

  private static final Properties BUILD = read("version.properties", "version", "registry", "tag");

  /**
   * The engine releases this project is proven against ({@code build/engines.properties}, copied
   * onto the classpath by the build): the conformance tests load these wheels' own code.
   */
  private static final Properties ENGINES = read("engines.properties", "vllm", "sglang");

  /** An upstream release number such as {@code 0.33.0} or {@code 0.5.4.post1}. */
  private static final Pattern RELEASE = Pattern.compile("[0-9]+(\\.[0-9]+)+(\\.post[0-9]+)?");

  /** The operator's version. */
  public static final String INFERA_VERSION = BUILD.getProperty("version");

  /**
   * Registry and tag of Infera's own images: the parent POM's {@code infera.image.registry} and
   * {@code infera.image.tag}, the same settings Jib ({@code -Pimages}) and the Helm chart use.
   */
  public static final String INFERA_REGISTRY = BUILD.getProperty("registry");

  public static final String INFERA_TAG = BUILD.getProperty("tag");

  public static final String ROUTER = INFERA_REGISTRY + "/infera-router:" + INFERA_TAG;
  public static final String SIM = INFERA_REGISTRY + "/infera-sim:" + INFERA_TAG;
  public static final String NATS = "nats:2.10-alpine";

  /** vLLM's OpenAI server image, tagged {@code v<release>} by vLLM's release pipeline. */
  public static final String VLLM = "vllm/vllm-openai:v" + release("vllm");

  /** SGLang's image, tagged {@code v<release>} (its CUDA 13 build) by SGLang's release workflow. */
  public static final String SGLANG = "lmsysorg/sglang:v" + release("sglang");

  /**
   * ATOM's image: ROCm/ATOM publishes only {@code rocm/atom-dev}, as {@code latest} and dated
   * {@code nightly_<yyyyMMddHHmm>} tags (no release tags, no PyPI wheel), so the default follows
   * {@code latest}; pin {@code spec.image} to a nightly tag for reproducible rollouts
   * (docs/atom.md).
   */
  public static final String ATOM = "rocm/atom-dev:latest";

  private Images() {}

  /** The pinned image of {@code engine}. */
  public static String engine(Engine engine) {
    return switch (engine) {
      case VLLM -> VLLM;
      case SGLANG -> SGLANG;
      case ATOM -> ATOM;
      case SIM -> SIM;
    };
  }

  private static String release(String engine) {
    String v = ENGINES.getProperty(engine).strip();
    if (!RELEASE.matcher(v).matches()) {
      throw new IllegalStateException("engines.properties: " + engine + "=" + v + " is no release");
    }
    return v;
  }

  private static Properties read(String file, String... keys) {
    Properties p = new Properties();
    String resource = "/io/infera/operator/" + file;
    try (InputStream in = Images.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource.substring(1) + " is not on the classpath");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String key : keys) {
      String v = p.getProperty(key);
      if (v == null || v.isBlank() || v.contains("${")) {
        throw new IllegalStateException(file + " has no resolved " + key + ": " + v);
      }
    }
    return p;
  }
}
