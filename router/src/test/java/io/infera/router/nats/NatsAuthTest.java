package io.infera.router.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Options;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.util.Base64;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Credentials and TLS files: what is accepted, what is refused, and that nothing else escapes. */
class NatsAuthTest {

  @TempDir Path dir;

  private static final Path F = Path.of("/f");

  @Test
  void noneIsAnonymousAndDescribesItselfWithoutSecrets() throws Exception {
    assertThat(NatsAuth.NONE.configured()).isFalse();
    assertThat(NatsAuth.NONE.describe()).isEqualTo("anonymous");
    Path pw = dir.resolve("pw");
    Files.writeString(pw, "Secret123\n");
    NatsAuth a = new NatsAuth(" router ", pw, null, null, null, null);
    assertThat(a.user()).isEqualTo("router");
    assertThat(a.describe()).isEqualTo("user=router").doesNotContain("Secret");
    assertThat(a.toString()).doesNotContain("Secret123");
    Options o = a.apply(new Options.Builder()).server("nats://127.0.0.1:1").build();
    assertThat(new String(o.getUsernameChars())).isEqualTo("router");
    assertThat(new String(o.getPasswordChars())).isEqualTo("Secret123");
  }

  @Test
  void partsThatGoTogetherAreRequiredTogether() {
    assertThatThrownBy(() -> new NatsAuth("u", null, null, null, null, null))
        .hasMessageContaining("user and its password file");
    assertThatThrownBy(() -> new NatsAuth(null, F, null, null, null, null))
        .hasMessageContaining("user and its password file");
    assertThatThrownBy(() -> new NatsAuth("u", F, F, null, null, null))
        .hasMessageContaining("not both");
    assertThatThrownBy(() -> new NatsAuth(null, null, null, F, F, null))
        .hasMessageContaining("certificate and its key");
    assertThatThrownBy(() -> new NatsAuth(null, null, null, null, F, F))
        .hasMessageContaining("needs the CA");
    assertThat(new NatsAuth(null, null, null, F, F, F).describe()).isEqualTo("tls=ca+cert");
    assertThat(new NatsAuth(null, null, F, F, null, null).describe()).isEqualTo("creds=f tls=ca");
  }

  @Test
  void aPasswordFileIsOneLineOfAtMost4096Characters() {
    assertThat(NatsAuth.password("abc\r\n\t ".getBytes(StandardCharsets.UTF_8), F))
        .isEqualTo("abc");
    assertThat(NatsAuth.password("x".repeat(4096).getBytes(StandardCharsets.UTF_8), F))
        .hasSize(4096);
    assertThatThrownBy(
            () -> NatsAuth.password("x".repeat(4097).getBytes(StandardCharsets.UTF_8), F))
        .hasMessageContaining("more than 4096");
    assertThatThrownBy(() -> NatsAuth.password(" \n".getBytes(StandardCharsets.UTF_8), F))
        .hasMessageContaining("empty");
    assertThatThrownBy(() -> NatsAuth.password("a\nb".getBytes(StandardCharsets.UTF_8), F))
        .hasMessageContaining("control character");
    assertThatThrownBy(() -> NatsAuth.password("a\u0000b".getBytes(StandardCharsets.UTF_8), F))
        .hasMessageContaining("control character");
  }

  @Test
  void filesOverOneMebibyteOrMissingAreRefusedNamingTheFile() throws Exception {
    Path big = dir.resolve("big");
    Files.write(big, new byte[NatsAuth.MAX_FILE_BYTES + 1]);
    assertThatThrownBy(
            () -> new NatsAuth("u", big, null, null, null, null).apply(new Options.Builder()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(big.toString());
    Path atLimit = dir.resolve("limit");
    Files.write(atLimit, ("p" + "x".repeat(100)).getBytes(StandardCharsets.UTF_8));
    new NatsAuth("u", atLimit, null, null, null, null).apply(new Options.Builder());
    assertThatThrownBy(
            () ->
                new NatsAuth("u", dir.resolve("missing"), null, null, null, null)
                    .apply(new Options.Builder()))
        .isInstanceOf(java.io.IOException.class);
  }

  @Test
  void aPkcs8KeyIsReadAndOtherKeyFormsAreRefusedWithAHint() throws Exception {
    for (String alg : new String[] {"RSA", "EC", "Ed25519"}) {
      KeyPairGenerator g = KeyPairGenerator.getInstance(alg);
      PrivateKey k = g.generateKeyPair().getPrivate();
      String pem =
          "-----BEGIN PRIVATE KEY-----\n"
              + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(k.getEncoded())
              + "\n-----END PRIVATE KEY-----\n";
      assertThat(NatsAuth.privateKey(pem.getBytes(StandardCharsets.US_ASCII), F).getEncoded())
          .as(alg)
          .isEqualTo(k.getEncoded());
    }
    assertThatThrownBy(
            () ->
                NatsAuth.privateKey(
                    "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----"
                        .getBytes(StandardCharsets.US_ASCII),
                    F))
        .hasMessageContaining("pkcs8");
    assertThatThrownBy(
            () ->
                NatsAuth.privateKey(
                    "-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----"
                        .getBytes(StandardCharsets.US_ASCII),
                    F))
        .hasMessageContaining("TLS key file /f");
    assertThatThrownBy(
            () ->
                NatsAuth.privateKey(
                    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"
                        .getBytes(StandardCharsets.US_ASCII),
                    F))
        .hasMessageContaining("not an RSA, EC or Ed25519");
  }

  @Test
  void garbageCertificatesAreRefusedNamingTheFile() {
    for (String s :
        new String[] {
          "",
          "hello",
          "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
          "-----BEGIN CERTIFICATE-----\n"
        }) {
      assertThatThrownBy(() -> NatsAuth.certificates(s.getBytes(StandardCharsets.US_ASCII), F))
          .as(s)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("TLS file /f");
    }
  }

  @Property(tries = 3000)
  void arbitraryFileContentsAreAcceptedOrRefusedWithIllegalArgument(
      @ForAll @Size(max = 600) byte[] bytes) {
    for (Runnable r :
        new Runnable[] {
          () -> NatsAuth.password(bytes, F),
          () -> NatsAuth.certificates(bytes, F),
          () -> NatsAuth.privateKey(bytes, F),
          () -> NatsAuth.privateKey(pemOf(bytes), F),
          () -> NatsAuth.certificates(certPemOf(bytes), F)
        }) {
      try {
        r.run();
      } catch (IllegalArgumentException expected) {
        // the only failure allowed
      }
    }
  }

  private static byte[] pemOf(byte[] der) {
    return ("-----BEGIN PRIVATE KEY-----\n"
            + Base64.getEncoder().encodeToString(der)
            + "\n-----END PRIVATE KEY-----\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] certPemOf(byte[] der) {
    return ("-----BEGIN CERTIFICATE-----\n"
            + Base64.getEncoder().encodeToString(der)
            + "\n-----END CERTIFICATE-----\n")
        .getBytes(StandardCharsets.US_ASCII);
  }
}
