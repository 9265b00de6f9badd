package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The one Secret the operator generates per deployment, {@code <idep>-infera}: values chosen once,
 * at random, and kept for the deployment's life (docs/operations.md, "Generated Secret").
 *
 * <p>Pure but for the random source the caller passes: a key the existing Secret already holds
 * keeps its value, so reconciling again (or a restarted operator) writes nothing; a missing key
 * gets a new value. {@code render} never builds it (its output holds only references to it).
 */
public final class GeneratedSecret {

  /** The engines' PYTHONHASHSEED when the spec sets none: a decimal in [0, 2^32 - 1]. */
  public static final String PYTHON_HASH_SEED_KEY = "pythonHashSeed";

  /** The bearer token of the routers' admin port: 32 random bytes, base64url. */
  public static final String ADMIN_TOKEN_KEY = "adminToken";

  private GeneratedSecret() {}

  /**
   * The Secret for {@code in}, keeping the values {@code existing} holds.
   *
   * @param existing the stored Secret's {@code data} (base64), empty when there is none
   * @param random the source of new values (a {@link java.security.SecureRandom} in the operator)
   */
  public static Secret build(RenderInputs in, Map<String, String> existing, Random random) {
    Map<String, String> data = new TreeMap<>();
    data.put(
        PYTHON_HASH_SEED_KEY,
        keep(existing, PYTHON_HASH_SEED_KEY, () -> Long.toString(random.nextLong() >>> 32)));
    data.put(
        ADMIN_TOKEN_KEY,
        keep(
            existing,
            ADMIN_TOKEN_KEY,
            () -> {
              byte[] b = new byte[32];
              random.nextBytes(b);
              return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
            }));
    return new SecretBuilder()
        .withMetadata(Common.meta(in, Names.generatedSecret(in.name()), Labels.common(in.name())))
        .withType("Opaque")
        .withData(data)
        .build();
  }

  /** The stored (base64) value of {@code key}, or a new value encoded. */
  private static String keep(
      Map<String, String> existing, String key, java.util.function.Supplier<String> fresh) {
    String stored = existing == null ? null : existing.get(key);
    if (stored != null && !stored.isEmpty()) {
      return stored;
    }
    return Base64.getEncoder().encodeToString(fresh.get().getBytes(StandardCharsets.UTF_8));
  }
}
