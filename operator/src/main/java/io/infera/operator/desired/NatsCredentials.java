package io.infera.operator.desired;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.KeyToPathBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.VolumeProjectionBuilder;
import io.infera.operator.desired.RenderInputs.ExternalAuth;
import io.infera.operator.desired.RenderInputs.ExternalTls;
import io.infera.operator.desired.RenderInputs.PoolSettings;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * NATS credentials of routers and relays (docs/contracts.md, "NATS event plane"). With the
 * operator's NATS, one user per role: {@code router}, and {@code relay-<pool>} per pool, their
 * passwords generated once into the Secret {@code <idep>-nats-auth} (owned by the InferaDeployment,
 * never rotated by a resync); the server reads them from env variables the rendered {@code
 * nats.conf} names, the pods from a mounted file of their own key only. With an external NATS, the
 * user's Secret keys are mounted instead. Rendered objects reference Secrets, never a generated
 * value, so {@code render} stays deterministic.
 */
public final class NatsCredentials {

  public static final String DEFAULT_PASSWORD_KEY = "password";
  public static final String DEFAULT_CREDS_KEY = "creds";
  public static final String DEFAULT_CA_KEY = "ca.crt";

  /** The routers' user on the operator's NATS (and the Secret key of its password). */
  public static final String ROUTER_USER = "router";

  /** Where routers and relays find their credential file(s). */
  public static final String AUTH_DIR = "/etc/infera-nats/auth";

  /** Where routers and relays find the external NATS's CA and their client certificate. */
  public static final String TLS_DIR = "/etc/infera-nats/tls";

  static final String AUTH_VOLUME = "nats-auth";
  static final String TLS_VOLUME = "nats-tls";
  static final String PASSWORD_FILE = "password";
  static final String CREDS_FILE = "creds";
  static final String CA_FILE = "ca.crt";
  static final String CERT_FILE = "tls.crt";
  static final String KEY_FILE = "tls.key";

  /** Generated passwords: a letter, then letters and digits (nats.conf parses env values). */
  static final int PASSWORD_CHARS = 40;

  private static final String LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  private static final String ALNUM = LETTERS + "0123456789";
  private static final int READ_ONLY = 0444;

  /**
   * What a router or relay container is given.
   *
   * @param user NATS user, or null
   * @param passwordFile path of the password file in the container, or null
   * @param credsFile path of the {@code .creds} file, or null
   * @param caFile path of the CA file, or null (no TLS)
   * @param certFile path of the client certificate, or null
   * @param keyFile path of its key, or null
   */
  public record Client(
      String user,
      String passwordFile,
      String credsFile,
      String caFile,
      String certFile,
      String keyFile,
      List<Volume> volumes,
      List<VolumeMount> mounts) {}

  private NatsCredentials() {}

  /** {@code <idep>-nats-auth}: the generated credentials of the operator's NATS. */
  public static String secretName(String deployment) {
    return Names.nats(deployment) + "-auth";
  }

  /** The NATS user of a pool's relays (and the Secret key of its password). */
  public static String relayUser(String pool) {
    return "relay-" + pool;
  }

  /** The env variable the NATS server reads a user's password from, named in nats.conf. */
  static String passwordEnv(String user) {
    return "INFERA_NATS_"
        + user.toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_')
        + "_PASSWORD";
  }

  /** Every user of the operator's NATS: the router, then one relay user per pool. */
  static List<String> users(RenderInputs in) {
    List<String> users = new ArrayList<>();
    users.add(ROUTER_USER);
    for (PoolSettings p : in.pools()) {
      users.add(relayUser(p.name()));
    }
    return users;
  }

  /** The NATS server's env: each user's password from the generated Secret. */
  static List<EnvVar> serverEnv(RenderInputs in) {
    List<EnvVar> env = new ArrayList<>();
    for (String user : users(in)) {
      env.add(
          new EnvVarBuilder()
              .withName(passwordEnv(user))
              .withNewValueFrom()
              .withNewSecretKeyRef()
              .withName(secretName(in.name()))
              .withKey(user)
              .endSecretKeyRef()
              .endValueFrom()
              .build());
    }
    return env;
  }

  /** The routers' credentials. */
  public static Client router(RenderInputs in) {
    return client(in, ROUTER_USER);
  }

  /** The credentials of {@code pool}'s relays. */
  public static Client relay(RenderInputs in, String pool) {
    return client(in, relayUser(pool));
  }

  /**
   * The routers' credentials as the env variables the router reads for {@code events.nats.auth.*}
   * and {@code events.nats.tls.*} (docs/contracts.md, "RouterConfig"): paths and the user name,
   * never a secret.
   */
  static List<EnvVar> routerEnv(RenderInputs in) {
    Client c = router(in);
    List<EnvVar> env = new ArrayList<>();
    envIfSet(env, "INFERA_NATS_USER", c.user());
    envIfSet(env, "INFERA_NATS_PASSWORD_FILE", c.passwordFile());
    envIfSet(env, "INFERA_NATS_CREDS", c.credsFile());
    envIfSet(env, "INFERA_NATS_TLS_CA", c.caFile());
    envIfSet(env, "INFERA_NATS_TLS_CERT", c.certFile());
    envIfSet(env, "INFERA_NATS_TLS_KEY", c.keyFile());
    return env;
  }

  private static void envIfSet(List<EnvVar> env, String name, String value) {
    if (value != null) {
      env.add(new EnvVarBuilder().withName(name).withValue(value).build());
    }
  }

  private static Client client(RenderInputs in, String generatedUser) {
    List<Volume> volumes = new ArrayList<>();
    List<VolumeMount> mounts = new ArrayList<>();
    String user = null;
    String passwordFile = null;
    String credsFile = null;
    if (in.nats().deployed()) {
      user = generatedUser;
      passwordFile = AUTH_DIR + "/" + PASSWORD_FILE;
      volumes.add(secretVolume(AUTH_VOLUME, secretName(in.name()), generatedUser, PASSWORD_FILE));
    } else if (in.nats().externalAuth() != null) {
      ExternalAuth a = in.nats().externalAuth();
      String file = a.creds() ? CREDS_FILE : PASSWORD_FILE;
      if (a.creds()) {
        credsFile = AUTH_DIR + "/" + file;
      } else {
        user = a.user();
        passwordFile = AUTH_DIR + "/" + file;
      }
      volumes.add(secretVolume(AUTH_VOLUME, a.secretName(), a.secretKey(), file));
    }
    if (!volumes.isEmpty()) {
      mounts.add(mount(AUTH_VOLUME, AUTH_DIR));
    }
    String caFile = null;
    String certFile = null;
    String keyFile = null;
    ExternalTls t = in.nats().deployed() ? null : in.nats().externalTls();
    if (t != null) {
      caFile = TLS_DIR + "/" + CA_FILE;
      VolumeBuilder v =
          new VolumeBuilder()
              .withName(TLS_VOLUME)
              .withNewProjected()
              .withDefaultMode(READ_ONLY)
              .addToSources(
                  new VolumeProjectionBuilder()
                      .withNewSecret()
                      .withName(t.caSecret())
                      .withItems(
                          new KeyToPathBuilder().withKey(t.caKey()).withPath(CA_FILE).build())
                      .endSecret()
                      .build())
              .endProjected();
      if (t.clientCertSecret() != null) {
        certFile = TLS_DIR + "/" + CERT_FILE;
        keyFile = TLS_DIR + "/" + KEY_FILE;
        v.editProjected()
            .addToSources(
                new VolumeProjectionBuilder()
                    .withNewSecret()
                    .withName(t.clientCertSecret())
                    .withItems(
                        new KeyToPathBuilder().withKey(CERT_FILE).withPath(CERT_FILE).build(),
                        new KeyToPathBuilder().withKey(KEY_FILE).withPath(KEY_FILE).build())
                    .endSecret()
                    .build())
            .endProjected();
      }
      volumes.add(v.build());
      mounts.add(mount(TLS_VOLUME, TLS_DIR));
    }
    return new Client(
        user,
        passwordFile,
        credsFile,
        caFile,
        certFile,
        keyFile,
        List.copyOf(volumes),
        List.copyOf(mounts));
  }

  /**
   * The generated Secret: each user's password, kept from {@code existing} (the Secret as it is in
   * the cluster, base64 values) and generated only for users it lacks (a new pool). Users of
   * removed pools are dropped with their pool.
   */
  public static Secret secret(
      RenderInputs in, Map<String, String> existing, Supplier<String> generate) {
    Map<String, String> data = new LinkedHashMap<>();
    for (String user : users(in)) {
      String kept = existing == null ? null : existing.get(user);
      data.put(
          user,
          kept != null && !kept.isEmpty()
              ? kept
              : Base64.getEncoder()
                  .encodeToString(generate.get().getBytes(StandardCharsets.UTF_8)));
    }
    return new SecretBuilder()
        .withMetadata(Common.meta(in, secretName(in.name()), Labels.nats(in.name())))
        .withType("Opaque")
        .withData(data)
        .build();
  }

  /** A password of {@link #PASSWORD_CHARS}: a letter, then letters and digits (~238 bits). */
  public static String generatePassword(SecureRandom random) {
    StringBuilder sb = new StringBuilder(PASSWORD_CHARS);
    sb.append(LETTERS.charAt(random.nextInt(LETTERS.length())));
    for (int i = 1; i < PASSWORD_CHARS; i++) {
      sb.append(ALNUM.charAt(random.nextInt(ALNUM.length())));
    }
    return sb.toString();
  }

  private static Volume secretVolume(String name, String secret, String key, String path) {
    return new VolumeBuilder()
        .withName(name)
        .withNewSecret()
        .withSecretName(secret)
        .withDefaultMode(READ_ONLY)
        .withItems(new KeyToPathBuilder().withKey(key).withPath(path).build())
        .endSecret()
        .build();
  }

  private static VolumeMount mount(String volume, String dir) {
    return new VolumeMountBuilder().withName(volume).withMountPath(dir).withReadOnly(true).build();
  }
}
