package io.infera.router.testing;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority for TLS tests, made with the JDK's own {@code keytool} (no
 * openssl needed): EC P-256 keys, a self-signed CA, and leaf certificates it signs with a subject
 * alternative name and an extended key usage. Everything is written as the PEM files a {@code
 * nats-server} and {@link io.infera.router.nats.NatsAuth} read: {@code <name>.crt} and a PKCS#8
 * {@code <name>.key}.
 */
public final class TestPki {

  private static final char[] STORE_PASSWORD = "changeit".toCharArray();

  private final Path dir;
  private final String name;
  private final Path caStore;

  private TestPki(Path dir, String name) {
    this.dir = dir;
    this.name = name;
    this.caStore = dir.resolve(name + "-ca.p12");
  }

  /** A new CA named {@code name} (its certificate in {@code <name>-ca.crt}) under {@code dir}. */
  public static TestPki create(Path dir, String name) throws Exception {
    Files.createDirectories(dir);
    TestPki pki = new TestPki(dir, name);
    keytool(
        "-genkeypair",
        "-alias",
        "ca",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=" + name + " test CA",
        "-ext",
        "bc:c",
        "-validity",
        "2",
        "-keystore",
        pki.caStore.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        new String(STORE_PASSWORD));
    keytool(
        "-exportcert",
        "-rfc",
        "-alias",
        "ca",
        "-keystore",
        pki.caStore.toString(),
        "-storepass",
        new String(STORE_PASSWORD),
        "-file",
        pki.caCert().toString());
    return pki;
  }

  /** The CA's certificate (PEM). */
  public Path caCert() {
    return dir.resolve(name + "-ca.crt");
  }

  /**
   * Issues a leaf certificate.
   *
   * @param leaf file name stem: {@code <leaf>.crt} and {@code <leaf>.key}
   * @param san e.g. {@code ip:127.0.0.1} or {@code dns:nats.example}
   * @param usage {@code serverAuth} or {@code clientAuth}
   * @return the certificate file (the key is beside it, {@link #keyOf})
   */
  public Path issue(String leaf, String san, String usage) throws Exception {
    Path store = dir.resolve(leaf + ".p12");
    Path request = dir.resolve(leaf + ".csr");
    Path cert = dir.resolve(leaf + ".crt");
    String pw = new String(STORE_PASSWORD);
    keytool(
        "-genkeypair",
        "-alias",
        leaf,
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=" + leaf,
        "-validity",
        "2",
        "-keystore",
        store.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        pw);
    keytool(
        "-certreq",
        "-alias",
        leaf,
        "-keystore",
        store.toString(),
        "-storepass",
        pw,
        "-file",
        request.toString());
    keytool(
        "-gencert",
        "-rfc",
        "-alias",
        "ca",
        "-keystore",
        caStore.toString(),
        "-storepass",
        pw,
        "-infile",
        request.toString(),
        "-outfile",
        cert.toString(),
        "-validity",
        "2",
        "-ext",
        "SAN=" + san,
        "-ext",
        "EKU=" + usage,
        "-ext",
        "KU=digitalSignature");
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, STORE_PASSWORD);
    }
    Key key = ks.getKey(leaf, STORE_PASSWORD);
    String pem =
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(key.getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
    Files.writeString(keyOf(cert), pem);
    return cert;
  }

  /** The PKCS#8 key file beside a certificate {@link #issue} wrote. */
  public static Path keyOf(Path cert) {
    String f = cert.getFileName().toString();
    return cert.resolveSibling(f.substring(0, f.length() - ".crt".length()) + ".key");
  }

  private static void keytool(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + out);
    }
  }
}
