package io.infera.router.nats;

import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * How a router or relay authenticates to NATS and verifies it (docs/contracts.md, "NATS event
 * plane"): a user with a password file, or a NATS credentials file (JWT and NKEY seed), and TLS
 * with a CA file and an optional client certificate; the server's certificate must chain to the CA
 * and name the host of the NATS URL. Only paths are held: the files are read at each connect, so a
 * Secret's update reaches the next connection and no secret is ever printed.
 *
 * @param user user name, with {@code passwordFile}
 * @param passwordFile the file holding the user's password (trailing whitespace ignored)
 * @param credsFile a NATS {@code .creds} file (JWT and NKEY seed), instead of a user
 * @param tlsCaFile PEM certificates the server's certificate must chain to; set, TLS is required
 * @param tlsCertFile PEM client certificate (chain), with {@code tlsKeyFile}
 * @param tlsKeyFile PEM PKCS#8 private key ({@code BEGIN PRIVATE KEY}) of {@code tlsCertFile}
 */
public record NatsAuth(
    String user,
    Path passwordFile,
    Path credsFile,
    Path tlsCaFile,
    Path tlsCertFile,
    Path tlsKeyFile) {

  /** No credentials, no TLS: an anonymous plain connection. */
  public static final NatsAuth NONE = new NatsAuth(null, null, null, null, null, null);

  /** Largest credential or PEM file read: they are a few KiB; more is not one. */
  public static final int MAX_FILE_BYTES = 1 << 20;

  /** Longest password accepted. */
  public static final int MAX_PASSWORD_CHARS = 4096;

  public NatsAuth {
    user = user == null || user.isBlank() ? null : user.strip();
    if ((user == null) != (passwordFile == null)) {
      throw new IllegalArgumentException("a NATS user and its password file go together");
    }
    if (user != null && credsFile != null) {
      throw new IllegalArgumentException("a NATS user or a credentials file, not both");
    }
    if ((tlsCertFile == null) != (tlsKeyFile == null)) {
      throw new IllegalArgumentException("a TLS client certificate and its key go together");
    }
    if (tlsCertFile != null && tlsCaFile == null) {
      throw new IllegalArgumentException("a TLS client certificate needs the CA file too");
    }
  }

  /** Whether any credential or TLS setting is given. */
  public boolean configured() {
    return !equals(NONE);
  }

  /** What is used, without any secret: e.g. {@code user=router tls=ca+cert}. */
  public String describe() {
    List<String> parts = new ArrayList<>();
    if (user != null) {
      parts.add("user=" + user);
    }
    if (credsFile != null) {
      parts.add("creds=" + credsFile.getFileName());
    }
    if (tlsCaFile != null) {
      parts.add(tlsCertFile == null ? "tls=ca" : "tls=ca+cert");
    }
    return parts.isEmpty() ? "anonymous" : String.join(" ", parts);
  }

  /**
   * Adds the credentials and TLS to {@code b}, reading the files now.
   *
   * @throws IOException when a file cannot be read
   * @throws IllegalArgumentException naming the file when it is not what it should be
   */
  public Options.Builder apply(Options.Builder b) throws IOException {
    if (user != null) {
      b.userInfo(user, password(readBounded(passwordFile), passwordFile));
    }
    if (credsFile != null) {
      readBounded(credsFile); // fail here, naming the file, rather than inside jnats
      b.authHandler(Nats.credentials(credsFile.toString()));
    }
    if (tlsCaFile != null) {
      b.sslContext(sslContext());
    }
    return b;
  }

  /** The password in a password file's bytes: UTF-8, trailing whitespace dropped. */
  static String password(byte[] bytes, Path file) {
    String s = new String(bytes, StandardCharsets.UTF_8).stripTrailing();
    if (s.isEmpty()) {
      throw new IllegalArgumentException("NATS password file " + file + " is empty");
    }
    if (s.length() > MAX_PASSWORD_CHARS) {
      throw new IllegalArgumentException(
          "NATS password file " + file + " holds more than " + MAX_PASSWORD_CHARS + " characters");
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == 0x7f) {
        throw new IllegalArgumentException(
            "NATS password file " + file + " holds a control character (one line expected)");
      }
    }
    return s;
  }

  private SSLContext sslContext() throws IOException {
    try {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int i = 0;
      for (Certificate c : certificates(readBounded(tlsCaFile), tlsCaFile)) {
        trust.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      KeyManagerFactory kmf = null;
      if (tlsCertFile != null) {
        List<Certificate> chain = certificates(readBounded(tlsCertFile), tlsCertFile);
        PrivateKey key = privateKey(readBounded(tlsKeyFile), tlsKeyFile);
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        char[] none = new char[0];
        ks.setKeyEntry("client", key, none, chain.toArray(new Certificate[0]));
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, none);
      }
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return HostnameVerifyingTls.wrap(ctx);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("NATS TLS setup failed: " + e.getMessage(), e);
    }
  }

  /** The X.509 certificates of a PEM file; at least one. */
  static List<Certificate> certificates(byte[] pem, Path file) {
    try (InputStream in = new ByteArrayInputStream(pem)) {
      Collection<? extends Certificate> certs =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certs.isEmpty()) {
        throw new IllegalArgumentException("TLS file " + file + " holds no PEM certificate");
      }
      return List.copyOf(certs);
    } catch (GeneralSecurityException | IOException | RuntimeException e) {
      if (e instanceof IllegalArgumentException iae && iae.getMessage().startsWith("TLS file")) {
        throw iae;
      }
      throw new IllegalArgumentException(
          "TLS file " + file + " is not PEM certificates: " + e.getMessage(), e);
    }
  }

  /** The private key of a PEM PKCS#8 file ({@code BEGIN PRIVATE KEY}), RSA or EC. */
  static PrivateKey privateKey(byte[] pem, Path file) {
    String s = new String(pem, StandardCharsets.US_ASCII);
    String begin = "-----BEGIN PRIVATE KEY-----";
    String end = "-----END PRIVATE KEY-----";
    int b = s.indexOf(begin);
    int e = b < 0 ? -1 : s.indexOf(end, b);
    if (b < 0 || e < 0) {
      throw new IllegalArgumentException(
          "TLS key file "
              + file
              + " holds no '"
              + begin
              + "' block (convert PKCS#1 keys with openssl pkcs8 -topk8 -nocrypt)");
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(s.substring(b + begin.length(), e));
    } catch (IllegalArgumentException ex) {
      throw new IllegalArgumentException("TLS key file " + file + " is not base64", ex);
    }
    for (String alg : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException | RuntimeException ex) {
        // next algorithm
      }
    }
    throw new IllegalArgumentException(
        "TLS key file " + file + " is not an RSA, EC or Ed25519 PKCS#8 key");
  }

  private static byte[] readBounded(Path file) throws IOException {
    long size = Files.size(file);
    if (size > MAX_FILE_BYTES) {
      throw new IllegalArgumentException(
          "NATS credential file " + file + " is " + size + " bytes, over " + MAX_FILE_BYTES);
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] bytes = in.readNBytes(MAX_FILE_BYTES + 1);
      if (bytes.length > MAX_FILE_BYTES) {
        throw new IllegalArgumentException(
            "NATS credential file " + file + " is over " + MAX_FILE_BYTES + " bytes");
      }
      return bytes;
    }
  }
}
