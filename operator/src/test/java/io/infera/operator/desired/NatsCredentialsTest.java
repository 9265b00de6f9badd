package io.infera.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.infera.operator.api.v1alpha1.Engine;
import io.infera.operator.api.v1alpha1.InferaDeployment;
import io.infera.operator.api.v1alpha1.NatsAuthSpec;
import io.infera.operator.api.v1alpha1.NatsDeploySpec;
import io.infera.operator.api.v1alpha1.NatsTlsSpec;
import io.infera.operator.api.v1alpha1.PoolRole;
import io.infera.operator.api.v1alpha1.SecretKeyRef;
import io.infera.operator.testing.Fixtures;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The NATS credentials: generated once, kept, mounted per role; never a value in a rendered object.
 */
class NatsCredentialsTest {

  private static RenderInputs inputs(InferaDeployment idep) {
    return Fixtures.fleet(idep).inputs();
  }

  @Test
  void theSecretKeepsWhatTheClusterHoldsAndGeneratesOnlyWhatIsMissing() {
    RenderInputs in = inputs(Fixtures.idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE));
    AtomicInteger made = new AtomicInteger();
    Secret first = NatsCredentials.secret(in, Map.of(), () -> "Gen" + made.incrementAndGet());
    assertThat(first.getMetadata().getName()).isEqualTo("demo-nats-auth");
    assertThat(first.getData()).containsOnlyKeys("router", "relay-prefill", "relay-decode");
    assertThat(made.get()).isEqualTo(3);
    // A resync: the same values, nothing generated.
    Secret again = NatsCredentials.secret(in, first.getData(), () -> "Never");
    assertThat(again.getData()).isEqualTo(first.getData());
    // A new pool: only its key is generated; a removed pool's key is dropped.
    Map<String, String> held = new HashMap<>(first.getData());
    held.put("relay-gone", b64("Old"));
    held.remove("relay-decode");
    Secret next = NatsCredentials.secret(in, held, () -> "Fresh");
    assertThat(next.getData())
        .containsEntry("router", first.getData().get("router"))
        .containsEntry("relay-decode", b64("Fresh"))
        .doesNotContainKey("relay-gone");
  }

  @Test
  void generatedPasswordsAreALetterThenLettersAndDigits() {
    SecureRandom r = new SecureRandom();
    for (int i = 0; i < 1000; i++) {
      String p = NatsCredentials.generatePassword(r);
      assertThat(p).hasSize(NatsCredentials.PASSWORD_CHARS).matches("[A-Za-z][A-Za-z0-9]+");
    }
  }

  @Test
  void theConfigNamesEnvVariablesTheServerReadsFromTheSecretAndHoldsNoPassword() {
    InferaDeployment idep = Fixtures.idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    NatsDeploySpec d = new NatsDeploySpec();
    d.setStorage(new Quantity("20Gi"));
    idep.getSpec().getNats().setDeploy(d);
    RenderInputs in = inputs(idep);
    String conf = DesiredNats.config(in);
    assertThat(conf)
        .contains("max_file_store: " + (20L << 30) * 90 / 100)
        .contains("max_memory_store: " + (512L << 20) / 4)
        .contains("password: $INFERA_NATS_ROUTER_PASSWORD")
        .contains("password: $INFERA_NATS_RELAY_PREFILL_PASSWORD")
        .contains("\"infera.kv.events.prefill.>\", \"$KV.infera_kv_snapshots.prefill.>\"")
        .doesNotContain("\"infera.kv.events.>\"");
    List<EnvVar> env =
        Fixtures.fleet(idep)
            .natsStatefulSet()
            .orElseThrow()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getEnv();
    assertThat(env)
        .filteredOn(e -> e.getName().startsWith("INFERA_NATS_"))
        .allSatisfy(
            e -> {
              assertThat(e.getValue()).isNull();
              assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("demo-nats-auth");
            })
        .extracting(EnvVar::getName)
        .containsExactly(
            "INFERA_NATS_ROUTER_PASSWORD",
            "INFERA_NATS_RELAY_DECODE_PASSWORD",
            "INFERA_NATS_RELAY_PREFILL_PASSWORD");
  }

  @Test
  void eachPodMountsOnlyItsRolesKey() {
    InferaDeployment idep = Fixtures.idep(Engine.VLLM, PoolRole.PREFILL, PoolRole.DECODE);
    Fleet fleet = Fixtures.fleet(idep);
    Deployment router = fleet.routerDeployment();
    assertThat(router.getSpec().getTemplate().getSpec().getVolumes())
        .filteredOn(v -> v.getName().equals("nats-auth"))
        .singleElement()
        .satisfies(
            v -> {
              assertThat(v.getSecret().getSecretName()).isEqualTo("demo-nats-auth");
              assertThat(v.getSecret().getItems())
                  .singleElement()
                  .satisfies(k -> assertThat(k.getKey()).isEqualTo("router"));
            });
    Container rc = router.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(rc.getEnv())
        .extracting(EnvVar::getName, EnvVar::getValue)
        .contains(
            org.assertj.core.groups.Tuple.tuple("INFERA_NATS_USER", "router"),
            org.assertj.core.groups.Tuple.tuple(
                "INFERA_NATS_PASSWORD_FILE", "/etc/infera-nats/auth/password"));
    for (Map.Entry<String, Deployment> e : fleet.poolDeployments().entrySet()) {
      String name = e.getKey();
      Deployment pool = e.getValue();
      assertThat(pool.getSpec().getTemplate().getSpec().getVolumes())
          .filteredOn(v -> v.getName().equals("nats-auth"))
          .singleElement()
          .satisfies(
              v ->
                  assertThat(v.getSecret().getItems())
                      .singleElement()
                      .satisfies(k -> assertThat(k.getKey()).isEqualTo("relay-" + name)));
    }
  }

  @Test
  void anExternalNatsMountsTheUsersSecretsAndNoGeneratedOne() {
    InferaDeployment idep = Fixtures.idep(Engine.VLLM, PoolRole.MIXED);
    idep.getSpec().getNats().setUrl("tls://nats.messaging:4222");
    NatsAuthSpec a = new NatsAuthSpec();
    SecretKeyRef creds = new SecretKeyRef();
    creds.setName("nats-creds");
    a.setCredsSecret(creds);
    idep.getSpec().getNats().setAuth(a);
    NatsTlsSpec t = new NatsTlsSpec();
    SecretKeyRef ca = new SecretKeyRef();
    ca.setName("nats-ca");
    t.setCaSecret(ca);
    t.setClientCertSecret("infera-nats-client");
    idep.getSpec().getNats().setTls(t);
    RenderInputs in = inputs(idep);
    NatsCredentials.Client c = NatsCredentials.relay(in, "mixed");
    assertThat(c.user()).isNull();
    assertThat(c.credsFile()).isEqualTo("/etc/infera-nats/auth/creds");
    assertThat(c.caFile()).isEqualTo("/etc/infera-nats/tls/ca.crt");
    assertThat(c.certFile()).isEqualTo("/etc/infera-nats/tls/tls.crt");
    assertThat(c.keyFile()).isEqualTo("/etc/infera-nats/tls/tls.key");
    assertThat(c.volumes()).extracting(v -> v.getName()).containsExactly("nats-auth", "nats-tls");
    assertThat(c.volumes().get(0).getSecret().getSecretName()).isEqualTo("nats-creds");
    assertThat(c.volumes().get(0).getSecret().getItems().get(0).getKey()).isEqualTo("creds");
    assertThat(RelaySidecar.args(in, in.pools().get(0)))
        .containsSubsequence("--nats-creds", "/etc/infera-nats/auth/creds")
        .containsSubsequence("--nats-tls-ca", "/etc/infera-nats/tls/ca.crt")
        .doesNotContain("--nats-user");
    assertThat(Fixtures.fleet(idep).natsStatefulSet()).isEmpty();
    // No auth on an external NATS: anonymous, nothing mounted.
    idep.getSpec().getNats().setAuth(null);
    idep.getSpec().getNats().setTls(null);
    NatsCredentials.Client none = NatsCredentials.router(inputs(idep));
    assertThat(none.volumes()).isEmpty();
    assertThat(none.user()).isNull();
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
