package io.infera.operator.desired;

import io.infera.operator.api.v1alpha1.Engine;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Default images, in one place; each is overridable from the spec ({@code spec.image}, a pool's
 * {@code image}, {@code spec.router.image}, {@code spec.nats.deploy.image}).
 *
 * <p>Infera's own images (router, simulator) have their CLI as entrypoint, so their containers pass
 * only {@code args}; the vLLM and SGLang containers set {@code command} explicitly, whatever the
 * image's entrypoint.
 */
public final class Images {

  private static final Properties BUILD = readBuild();

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
  public static final String VLLM = "vllm/vllm-openai:v0.11.0";
  public static final String SGLANG = "lmsysorg/sglang:v0.5.3";

  private Images() {}

  /** The pinned image of {@code engine}. */
  public static String engine(Engine engine) {
    return switch (engine) {
      case VLLM -> VLLM;
      case SGLANG -> SGLANG;
      case SIM -> SIM;
    };
  }

  private static Properties readBuild() {
    Properties p = new Properties();
    try (InputStream in =
        Images.class.getResourceAsStream("/io/infera/operator/version.properties")) {
      if (in == null) {
        throw new IllegalStateException(
            "io/infera/operator/version.properties is not on the classpath");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (String key : new String[] {"version", "registry", "tag"}) {
      String v = p.getProperty(key);
      if (v == null || v.isBlank() || v.contains("${")) {
        throw new IllegalStateException("version.properties has no resolved " + key + ": " + v);
      }
    }
    return p;
  }
}
