package io.infera.router.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.Role;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.EventIngest;
import io.infera.router.events.FakeVllmPublisher;
import io.infera.router.events.nats.NatsTransport;
import io.infera.router.events.nats.NatsTransportIT;
import io.infera.router.kv.EventBatch;
import io.infera.router.kv.Events;
import io.infera.router.kv.KvEvent;
import io.infera.router.kv.PrefixIndex;
import io.infera.router.kv.SourceId;
import io.infera.router.kv.WorkerId;
import io.infera.router.nats.EventSubjects;
import io.infera.router.nats.NatsAuth;
import io.infera.router.nats.NatsHeaders;
import io.infera.router.relay.StreamClient.Outbound;
import io.infera.router.testing.NatsServer;
import io.infera.router.testing.TestPki;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS to an external NATS ({@code spec.nats.tls}, docs/security.md), against a real {@code
 * nats-server} that requires TLS and verifies client certificates, on Debian's 2.9 and on a current
 * release: a relay and a router that hold the CA and a client certificate (the files the operator
 * mounts from the Secrets) connect over {@code tls://}, publish and read, and the router's view is
 * exact; a plain connection, one without a client certificate, one whose client certificate another
 * CA signed, one that trusts another CA, and a server certificate issued for another host name are
 * all refused, and a router so refused stays up and says why in its outage.
 */
class NatsTlsIT {

  private static final int PAGE = 16;
  private static final String POOL = "decode";
  private static final String WORKER = "qwen-decode-7d9f-a1";
  private static final String PASSWORD = "Tls0nlyPasswordForThisTestRun";

  @TempDir Path dir;

  // One PKI for both servers: keytool is a JVM start per step, seconds each on a loaded machine.
  @TempDir static Path pkiDir;
  private static TestPki pki;
  private static TestPki other;
  private static Path serverCert;
  private static Path clientCert;
  private static Path foreignClient;
  private static Path wrongHost;

  @BeforeAll
  static void issueCertificates() throws Exception {
    pki = TestPki.create(pkiDir.resolve("pki"), "infera");
    other = TestPki.create(pkiDir.resolve("other"), "other");
    serverCert = pki.issue("nats", "ip:127.0.0.1", "serverAuth");
    clientCert = pki.issue("client", "dns:infera-router", "clientAuth");
    foreignClient = other.issue("foreign-client", "dns:intruder", "clientAuth");
    wrongHost = pki.issue("nats-elsewhere", "dns:nats.elsewhere.example", "serverAuth");
  }

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
  }

  @ParameterizedTest(name = "nats-server {0}")
  @ValueSource(strings = {"debian", "current"})
  void relaysAndRoutersSpeakVerifiedTlsAndEverythingElseIsRefused(String which) throws Exception {
    Path binary = which.equals("debian") ? NatsServer.binary() : NatsServer.current();
    NatsServer server = tlsServer(binary, "tls", serverCert, pki.caCert());
    String url = "tls://127.0.0.1:" + server.port();

    NatsAuth good = auth(pki.caCert(), clientCert);
    // A relay publishes over TLS; the router reads over TLS; the view is exact.
    NatsStreamClient relay = relay(url, good);
    PrefixIndex reference = new PrefixIndex(PAGE);
    long last = 0;
    for (int n = 0; n < 5; n++) {
      last = publish(relay, reference, n, last);
    }
    Router router = router(url, good);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(router.view())
                    .containsExactly(reference.viewHashes(SourceId.of(WORKER, 0))));
    assertThat(router.transport.outage()).isNull();

    // Plain text to a TLS server, with the right password: refused.
    assertThatThrownBy(
            () ->
                Nats.connect(
                    options(url, new NatsAuth("infera", passwordFile(), null, null, null, null))))
        .as("plain connection to a TLS-only server")
        .isInstanceOf(Exception.class);
    // TLS without a client certificate: the server verifies client certificates.
    assertThatThrownBy(() -> Nats.connect(options(url, auth(pki.caCert(), null))))
        .as("no client certificate")
        .isInstanceOf(Exception.class);
    // A client certificate another CA signed.
    assertThatThrownBy(() -> Nats.connect(options(url, auth(pki.caCert(), foreignClient))))
        .as("client certificate of another CA")
        .isInstanceOf(Exception.class);
    // The client trusts another CA: it refuses the server.
    assertThatThrownBy(() -> Nats.connect(options(url, auth(other.caCert(), clientCert))))
        .as("server certificate not chaining to the configured CA")
        .isInstanceOf(Exception.class);
    String log = server.log();
    assertThat(log).as("the server saw the refused handshakes").contains("TLS handshake error");

    // A router with the wrong CA stays up, is not connected and says why.
    Router refused = router(url, auth(other.caCert(), clientCert));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              var outage = refused.transport.outage();
              assertThat(outage).isNotNull();
              assertThat(outage.reason()).isEqualTo("NatsUnreachable");
              assertThat(outage.message())
                  .contains("cannot connect to " + url)
                  .as("names the TLS reason")
                  .containsIgnoringCase("certificat");
            });

    // The honest router keeps reading over TLS.
    last = publish(relay, reference, 5, last);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(router.view())
                    .containsExactly(reference.viewHashes(SourceId.of(WORKER, 0))));

    // A server whose certificate (right CA) names another host: the client checks the name.
    NatsServer elsewhere = tlsServer(binary, "tls-elsewhere", wrongHost, pki.caCert());
    String elsewhereUrl = "tls://127.0.0.1:" + elsewhere.port();
    assertThatThrownBy(() -> Nats.connect(options(elsewhereUrl, good)))
        .as("server certificate for another host name")
        .isInstanceOf(Exception.class);
    Router misnamed = router(elsewhereUrl, good);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              var outage = misnamed.transport.outage();
              assertThat(outage).isNotNull();
              assertThat(outage.message())
                  .as("names the host name mismatch")
                  .containsIgnoringCase("subject alternative");
            });
  }

  private NatsServer tlsServer(Path binary, String name, Path cert, Path ca) throws Exception {
    Path conf = dir.resolve(name + ".conf");
    Files.writeString(
        conf,
        "tls {\n"
            + "  cert_file: \""
            + cert
            + "\"\n  key_file: \""
            + TestPki.keyOf(cert)
            + "\"\n  ca_file: \""
            + ca
            + "\"\n  verify: true\n  timeout: 5\n}\n"
            + "authorization {\n  users = [ { user: infera, password: \""
            + PASSWORD
            + "\" } ]\n}\n");
    NatsServer s = NatsServer.start(binary, dir.resolve(name), Map.of(), "-c", conf.toString());
    closing.add(s);
    return s;
  }

  private Path passwordFile() throws Exception {
    Path f = dir.resolve("password");
    Files.writeString(f, PASSWORD + "\n");
    return f;
  }

  private NatsAuth auth(Path ca, Path clientCert) throws Exception {
    return new NatsAuth(
        "infera",
        passwordFile(),
        null,
        ca,
        clientCert,
        clientCert == null ? null : TestPki.keyOf(clientCert));
  }

  private static Options options(String url, NatsAuth auth) throws Exception {
    return auth.apply(new Options.Builder())
        .server(url)
        .maxReconnects(0)
        .connectionTimeout(Duration.ofSeconds(5))
        .build();
  }

  private NatsStreamClient relay(String url, NatsAuth auth) throws Exception {
    RelayOptions o =
        RelayOptions.builder("tcp://127.0.0.1:5557", url, WorkerId.of(WORKER))
            .pool(POOL)
            .auth(auth)
            .blockSize(PAGE)
            .publishTimeout(Duration.ofSeconds(2))
            .build();
    NatsStreamClient c = new NatsStreamClient(o);
    closing.add(c::close);
    assertThat(c.connect(() -> true)).isTrue();
    c.setup();
    return c;
  }

  private static long publish(NatsStreamClient c, PrefixIndex reference, int n, long last)
      throws Exception {
    long base = 4_200_000;
    KvEvent e =
        Events.stored(
            PAGE,
            new long[] {base + n},
            n == 0 ? null : base + n - 1,
            Events.range(n * PAGE, PAGE));
    reference.apply(WorkerId.of(WORKER), n, new EventBatch(0, List.of(e), 0, 0));
    Map<String, String> h = new LinkedHashMap<>();
    h.put(NatsHeaders.ENGINE_SEQ, Long.toString(n));
    h.put(NatsHeaders.ENGINE, "vllm");
    h.put(NatsHeaders.BLOCK_SIZE, Integer.toString(PAGE));
    Outbound m =
        new Outbound(
            EventSubjects.subject(EventSubjects.DEFAULT_PREFIX, POOL, WorkerId.of(WORKER), 0),
            h,
            FakeVllmPublisher.batchPayload(1.0, 0, e),
            WORKER + "-" + n);
    return c.publish(m, last).streamSeq();
  }

  private Router router(String url, NatsAuth auth) throws Exception {
    PrefixIndex index = new PrefixIndex(PAGE);
    EventIngest ingest = new EventIngest(index, 10_000).start();
    NatsTransport transport =
        new NatsTransport(
            new RouterConfig.Nats(
                url,
                EventSubjects.DEFAULT_STREAM,
                EventSubjects.DEFAULT_PREFIX,
                EventSubjects.DEFAULT_BUCKET,
                false,
                auth),
            PAGE,
            NatsTransportIT.settings().withHold(10_000, Duration.ofSeconds(1)));
    closing.add(ingest::close);
    closing.add(transport::close);
    transport.start(ingest);
    WorkerInfo w =
        new WorkerInfo(
            WorkerId.of(WORKER),
            "http://127.0.0.1:1",
            Role.MIXED,
            "vllm",
            1,
            null,
            null,
            WorkerInfo.Readiness.READY,
            POOL);
    ingest.workers(Set.of(w.id()), Set.of());
    transport.workersChanged(List.of(w));
    return new Router(ingest, transport);
  }

  private record Router(EventIngest ingest, NatsTransport transport) {
    long[] view() throws Exception {
      return ingest.onWriter(i -> i.viewHashes(SourceId.of(WORKER, 0))).get(10, TimeUnit.SECONDS);
    }
  }
}
