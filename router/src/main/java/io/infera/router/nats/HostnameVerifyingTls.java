package io.infera.router.nats;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.security.KeyManagementException;
import java.security.SecureRandom;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * An {@link SSLContext} whose client sockets and engines check that the server's certificate names
 * the host they connect to (HTTPS endpoint identification: a DNS or IP subject alternative name).
 * jnats upgrades its socket with the context's socket factory and checks only the chain, so any
 * certificate the CA signed, for any host, would pass; this closes that (docs/contracts.md, "NATS
 * event plane").
 */
final class HostnameVerifyingTls {

  private HostnameVerifyingTls() {}

  /** {@code delegate}, initialised, with endpoint identification on every client socket. */
  static SSLContext wrap(SSLContext delegate) {
    return new Context(delegate);
  }

  private static <T extends SSLSocket> T verify(T s) {
    SSLParameters p = s.getSSLParameters();
    p.setEndpointIdentificationAlgorithm("HTTPS");
    s.setSSLParameters(p);
    return s;
  }

  private static SSLEngine verify(SSLEngine e) {
    SSLParameters p = e.getSSLParameters();
    p.setEndpointIdentificationAlgorithm("HTTPS");
    e.setSSLParameters(p);
    return e;
  }

  private static final class Context extends SSLContext {
    Context(SSLContext d) {
      super(new Spi(d), d.getProvider(), d.getProtocol());
    }
  }

  private static final class Spi extends SSLContextSpi {
    private final SSLContext d;

    Spi(SSLContext d) {
      this.d = d;
    }

    @Override
    protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr)
        throws KeyManagementException {
      d.init(km, tm, sr);
    }

    @Override
    protected SSLSocketFactory engineGetSocketFactory() {
      return new Factory(d.getSocketFactory());
    }

    @Override
    protected SSLServerSocketFactory engineGetServerSocketFactory() {
      return d.getServerSocketFactory();
    }

    @Override
    protected SSLEngine engineCreateSSLEngine() {
      return d.createSSLEngine(); // no peer host: nothing to check it against
    }

    @Override
    protected SSLEngine engineCreateSSLEngine(String host, int port) {
      return verify(d.createSSLEngine(host, port));
    }

    @Override
    protected SSLSessionContext engineGetServerSessionContext() {
      return d.getServerSessionContext();
    }

    @Override
    protected SSLSessionContext engineGetClientSessionContext() {
      return d.getClientSessionContext();
    }
  }

  private static final class Factory extends SSLSocketFactory {
    private final SSLSocketFactory d;

    Factory(SSLSocketFactory d) {
      this.d = d;
    }

    @Override
    public String[] getDefaultCipherSuites() {
      return d.getDefaultCipherSuites();
    }

    @Override
    public String[] getSupportedCipherSuites() {
      return d.getSupportedCipherSuites();
    }

    @Override
    public Socket createSocket(Socket s, String host, int port, boolean autoClose)
        throws IOException {
      return verify((SSLSocket) d.createSocket(s, host, port, autoClose));
    }

    @Override
    public Socket createSocket(Socket s, InputStream consumed, boolean autoClose)
        throws IOException {
      return d.createSocket(s, consumed, autoClose); // server side
    }

    @Override
    public Socket createSocket() throws IOException {
      return verify((SSLSocket) d.createSocket());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      return verify((SSLSocket) d.createSocket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress local, int localPort)
        throws IOException {
      return verify((SSLSocket) d.createSocket(host, port, local, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      return verify((SSLSocket) d.createSocket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress host, int port, InetAddress local, int localPort)
        throws IOException {
      return verify((SSLSocket) d.createSocket(host, port, local, localPort));
    }
  }
}
