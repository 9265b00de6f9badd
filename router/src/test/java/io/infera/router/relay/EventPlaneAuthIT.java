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
import io.infera.router.nats.NatsKeys;
import io.infera.router.relay.StreamClient.Outbound;
import io.infera.router.testing.NatsServer;
import io.nats.client.Connection;
import io.nats.client.JetStreamOptions;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

/**
 * The event plane's authentication and per-role authorization against a real {@code nats-server}
 * running the {@code nats.conf} the operator renders (taken from the operator's golden render of
 * {@code config/samples/vllm-pd.yaml}, pools {@code decode} and {@code prefill}), on Debian's 2.9
 * and on a current release ({@link NatsServer#current()}): honest relays publish and snapshot with
 * their pool's credentials, a router reads with its own; then anonymous and wrong-password
 * connections, a relay writing another pool's subjects and snapshot keys, a relay speaking for a
 * worker outside its pool or for one discovery does not know, forged resync markers and load
 * totals, and a router credential publishing events or writing snapshots are refused by the server
 * or dropped (and counted) by the router; the honest workers' views stay exact, also for a router
 * that starts afterwards.
 */
class EventPlaneAuthIT {

  private static final String STREAM = EventSubjects.DEFAULT_STREAM;
  private static final String PREFIX = EventSubjects.DEFAULT_PREFIX;
  private static final String BUCKET = EventSubjects.DEFAULT_BUCKET;
  private static final int PAGE = 16;
  private static final String D1 = "qwen-pd-decode-7d9f-a1";
  private static final String D2 = "qwen-pd-decode-7d9f-b2";
  private static final String P1 = "qwen-pd-prefill-5c4e-c3";

  @TempDir Path dir;

  private NatsServer server;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final Map<String, PrefixIndex> reference = new HashMap<>();
  private final Map<String, Long> engineSeq = new HashMap<>();
  private final Map<String, Integer> blocks = new HashMap<>();
  private final Map<String, Long> lastSeq = new HashMap<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest(name = "nats-server {0}")
  @ValueSource(strings = {"debian", "current"})
  void onlyEachRolesOwnSubjectsAreWritableAndForgeriesLeaveHonestViewsExact(String which)
      throws Exception {
    Path binary = which.equals("debian") ? NatsServer.binary() : NatsServer.current();
    String conf = renderedNatsConf();
    assertThat(conf).contains("authorization", "relay-decode", "relay-prefill", "max_file_store");
    Path confFile = dir.resolve("nats.conf");
    Files.writeString(confFile, conf);
    Map<String, String> passwords = new LinkedHashMap<>();
    for (String user : List.of("router", "relay-decode", "relay-prefill")) {
      passwords.put(user, password());
    }
    Map<String, String> env = new HashMap<>();
    passwords.forEach(
        (u, p) -> env.put("INFERA_NATS_" + u.toUpperCase().replace('-', '_') + "_PASSWORD", p));
    server = NatsServer.start(binary, dir.resolve("nats"), env, "-c", confFile.toString());
    String version = version(binary);

    // Anonymous and wrong-password connections are refused.
    assertThatThrownBy(() -> Nats.connect(options(NatsAuth.NONE).build()))
        .as("anonymous on %s", version)
        .hasMessageContaining("Authorization Violation");
    Path wrong = dir.resolve("wrong");
    Files.writeString(wrong, "Wrong" + passwords.get("router"));
    assertThatThrownBy(
            () ->
                Nats.connect(
                    options(new NatsAuth("router", wrong, null, null, null, null)).build()))
        .hasMessageContaining("Authorization Violation");

    // Honest relays set up the stream and bucket, publish and snapshot with their pool's user.
    NatsStreamClient decodeRelay = relay("decode", D1, passwords);
    NatsStreamClient decodeRelay2 = relay("decode", D2, passwords);
    NatsStreamClient prefillRelay = relay("prefill", P1, passwords);
    for (int i = 0; i < 6; i++) {
      publish(decodeRelay, "decode", D1);
      publish(decodeRelay2, "decode", D2);
      publish(prefillRelay, "prefill", P1);
    }
    long p1Watermark = lastSeq.get(P1);
    prefillRelay.putSnapshot(
        NatsKeys.snapshotKey("prefill", WorkerId.of(P1), 0), snapshot(P1, p1Watermark));
    assertThat(prefillRelay.getSnapshot(NatsKeys.snapshotKey("prefill", WorkerId.of(P1), 0)))
        .as("a relay reads its own pool's snapshot")
        .isPresent();
    RelayOptions d1 = options("decode", D1, passwords);
    assertThat(decodeRelay.lastMessage(d1.subject(0))).isPresent();
    List<StreamClient.Stored> read = new ArrayList<>();
    decodeRelay.read(d1.subject(0), 1, lastSeq.get(D1), read::add);
    assertThat(read).hasSize(6);

    // The router reads with its own user.
    Router router = router(passwords);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              for (String w : List.of(D1, D2, P1)) {
                assertThat(router.view(w)).as(w).containsExactly(referenceView(w));
              }
            });

    // A decode relay writes prefill's subject and snapshot key, and reads its snapshot: refused.
    Outbound intoPrefill =
        new Outbound(
            EventSubjects.subject(PREFIX, "prefill", WorkerId.of(P1), 0),
            headers(99),
            FakeVllmPublisher.batchPayload(1.0, 0, garbageEvent()),
            "forged-1");
    assertThatThrownBy(() -> decodeRelay.publish(intoPrefill, -1)).isInstanceOf(Exception.class);
    assertThatThrownBy(
            () ->
                decodeRelay.putSnapshot(
                    NatsKeys.snapshotKey("prefill", WorkerId.of(P1), 0), new byte[] {1, 2, 3}))
        .isInstanceOf(Exception.class);
    assertThat(
            attempt(
                () -> decodeRelay.getSnapshot(NatsKeys.snapshotKey("prefill", WorkerId.of(P1), 0))))
        .as("a relay cannot read another pool's snapshot")
        .isFalse();
    // Under its own pool token, it names a prefill worker (events and a reset), a worker
    // discovery does not know, and writes a snapshot key for the prefill worker: the server lets
    // it (its pool's subjects), the router drops or never reads them.
    decodeRelay.publish(
        new Outbound(
            EventSubjects.subject(PREFIX, "decode", WorkerId.of(P1), 0),
            headers(100),
            FakeVllmPublisher.batchPayload(1.0, 0, garbageEvent()),
            "forged-2"),
        -1);
    Map<String, String> reset = new LinkedHashMap<>();
    reset.put(NatsHeaders.RESYNC, "overflow");
    decodeRelay.publish(
        new Outbound(
            EventSubjects.subject(PREFIX, "decode", WorkerId.of(P1), 0),
            reset,
            new byte[0],
            "forged-3"),
        -1);
    decodeRelay.putSnapshot(
        NatsKeys.snapshotKey("decode", WorkerId.of(P1), 0), snapshot(D1, lastSeq.get(D1)));
    decodeRelay.publish(
        new Outbound(
            EventSubjects.subject(PREFIX, "decode", WorkerId.of("qwen-pd-decode-forged"), 0),
            headers(0),
            FakeVllmPublisher.batchPayload(1.0, 0, garbageEvent()),
            "forged-4"),
        -1);
    // Forged load totals: only routers may publish on the load subject.
    try (Connection relayConn = Nats.connect(options(relayAuth("decode", passwords)).build())) {
      relayConn.publish(EventSubjects.loadSubject(PREFIX), new byte[] {1, 2, 3});
      relayConn.flush(Duration.ofSeconds(2));
    }

    // A router's credential publishes events and writes snapshots: refused.
    try (Connection routerConn = Nats.connect(options(routerAuth(passwords)).build())) {
      var js =
          routerConn.jetStream(
              JetStreamOptions.builder().requestTimeout(Duration.ofMillis(500)).build());
      assertThatThrownBy(
              () ->
                  js.publish(
                      EventSubjects.subject(PREFIX, "decode", WorkerId.of(D1), 0),
                      FakeVllmPublisher.batchPayload(1.0, 0, garbageEvent())))
          .isInstanceOf(Exception.class);
      assertThatThrownBy(
              () ->
                  routerConn
                      .keyValue(BUCKET)
                      .put(NatsKeys.snapshotKey("decode", WorkerId.of(D1), 0), new byte[] {9}))
          .isInstanceOf(Exception.class);
      assertThatThrownBy(() -> routerConn.jetStreamManagement().purgeStream(STREAM))
          .isInstanceOf(Exception.class);
    }
    // The server itself refused exactly these (2.9 names the user, newer ones may not).
    String log = server.log();
    List<String> expected =
        List.of(
            violation("relay-decode", PREFIX + ".prefill."),
            violation("relay-decode", "$KV." + BUCKET + ".prefill."),
            violation(
                "relay-decode", "$JS.API.DIRECT.GET.KV_" + BUCKET + ".$KV." + BUCKET + ".prefill."),
            violation("relay-decode", EventSubjects.loadSubject(PREFIX)),
            violation("router", PREFIX + ".decode."),
            violation("router", "$KV." + BUCKET + ".decode."),
            violation("router", "$JS.API.STREAM.PURGE." + STREAM));
    for (String v : expected) {
      assertThat(Pattern.compile(v).matcher(log).find())
          .as("%s: %s in\n%s", version, v, log)
          .isTrue();
    }
    assertThat(log.lines().filter(l -> l.contains("Publish Violation")).count())
        .as("%s: no other publish refused (an honest call missing a permission)", version)
        .isEqualTo(expected.size());

    // Honest traffic goes on; the views stay exact; the forgeries were counted.
    for (int i = 0; i < 3; i++) {
      publish(decodeRelay, "decode", D1);
      publish(prefillRelay, "prefill", P1);
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              for (String w : List.of(D1, D2, P1)) {
                assertThat(router.view(w)).as(w).containsExactly(referenceView(w));
              }
              assertThat(router.transport.counters().foreignPool()).isEqualTo(2);
              assertThat(router.transport.counters().undiscoveredDropped()).isEqualTo(1);
            });
    // A router starting now seeds prefill's worker from its pool's key, not the forged one.
    Router late = router(passwords);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              for (String w : List.of(D1, D2, P1)) {
                assertThat(late.view(w)).as("late " + w).containsExactly(referenceView(w));
              }
            });
    assertThat(late.transport.counters().snapshotsSeeded()).isGreaterThanOrEqualTo(1);
    assertThat(late.transport.counters().foreignPool()).isEqualTo(2);
  }

  private static String violation(String user, String subjectPrefix) {
    return "Publish Violation - (User \""
        + Pattern.quote(user)
        + "\", )?Subject \""
        + Pattern.quote(subjectPrefix);
  }

  /** The nats.conf of the operator's golden render of the vllm-pd sample. */
  @SuppressWarnings("unchecked")
  static String renderedNatsConf() throws Exception {
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !Files.exists(root.resolve("build/nats-server.sh"))) {
      root = root.getParent();
    }
    assertThat(root).as("repository root").isNotNull();
    String golden =
        Files.readString(root.resolve("operator/src/test/resources/golden/vllm-pd.yaml"));
    for (Object doc : new Yaml().loadAll(golden)) {
      Map<String, Object> m = (Map<String, Object>) doc;
      Map<String, Object> meta = (Map<String, Object>) m.get("metadata");
      if ("ConfigMap".equals(m.get("kind")) && "qwen-pd-nats".equals(meta.get("name"))) {
        return (String) ((Map<String, Object>) m.get("data")).get("nats.conf");
      }
    }
    throw new AssertionError("no ConfigMap qwen-pd-nats in the vllm-pd golden render");
  }

  private static String password() {
    String letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    String alnum = letters + "0123456789";
    SecureRandom r = new SecureRandom();
    StringBuilder sb = new StringBuilder().append(letters.charAt(r.nextInt(letters.length())));
    for (int i = 0; i < 39; i++) {
      sb.append(alnum.charAt(r.nextInt(alnum.length())));
    }
    return sb.toString();
  }

  private Path passwordFile(String user, Map<String, String> passwords) throws Exception {
    Path f = dir.resolve("pw-" + user);
    Files.writeString(f, passwords.get(user) + "\n");
    return f;
  }

  private NatsAuth relayAuth(String pool, Map<String, String> passwords) throws Exception {
    String user = "relay-" + pool;
    return new NatsAuth(user, passwordFile(user, passwords), null, null, null, null);
  }

  private NatsAuth routerAuth(Map<String, String> passwords) throws Exception {
    return new NatsAuth("router", passwordFile("router", passwords), null, null, null, null);
  }

  private Options.Builder options(NatsAuth auth) throws Exception {
    return auth.apply(new Options.Builder())
        .server(server.url())
        .maxReconnects(0)
        .connectionTimeout(Duration.ofSeconds(5));
  }

  private RelayOptions options(String pool, String worker, Map<String, String> passwords)
      throws Exception {
    return RelayOptions.builder("tcp://127.0.0.1:5557", server.url(), WorkerId.of(worker))
        .pool(pool)
        .auth(relayAuth(pool, passwords))
        .blockSize(PAGE)
        .publishTimeout(Duration.ofMillis(700))
        .build();
  }

  private NatsStreamClient relay(String pool, String worker, Map<String, String> passwords)
      throws Exception {
    NatsStreamClient c = new NatsStreamClient(options(pool, worker, passwords));
    closing.add(c::close);
    assertThat(c.connect(() -> true)).isTrue();
    c.setup();
    return c;
  }

  private static Map<String, String> headers(long seq) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put(NatsHeaders.ENGINE_SEQ, Long.toString(seq));
    h.put(NatsHeaders.ENGINE, "vllm");
    h.put(NatsHeaders.BLOCK_SIZE, Integer.toString(PAGE));
    return h;
  }

  /** One honest batch of {@code worker}, in order, into the reference view too. */
  private void publish(NatsStreamClient c, String pool, String worker) throws Exception {
    int n = blocks.merge(worker, 1, Integer::sum) - 1;
    long base = Math.abs((long) worker.hashCode()) * 1000;
    KvEvent e =
        Events.stored(
            PAGE,
            new long[] {base + n},
            n == 0 ? null : base + n - 1,
            Events.range(n * PAGE, PAGE));
    long seq = engineSeq.merge(worker, 1L, Long::sum) - 1;
    reference
        .computeIfAbsent(worker, w -> new PrefixIndex(PAGE))
        .apply(WorkerId.of(worker), seq, new EventBatch(0, List.of(e), 0, 0));
    Outbound m =
        new Outbound(
            EventSubjects.subject(PREFIX, pool, WorkerId.of(worker), 0),
            headers(seq),
            FakeVllmPublisher.batchPayload(1.0, 0, e),
            worker + "-" + seq);
    StreamClient.Ack ack = c.publish(m, lastSeq.getOrDefault(worker, 0L));
    lastSeq.put(worker, ack.streamSeq());
  }

  private static KvEvent garbageEvent() {
    return Events.stored(PAGE, new long[] {777_777}, null, Events.range(0, PAGE));
  }

  private byte[] snapshot(String worker, long streamSeq) {
    return reference.get(worker).snapshot(SourceId.of(worker, 0), streamSeq).encode();
  }

  private long[] referenceView(String worker) {
    return reference.get(worker).viewHashes(SourceId.of(worker, 0));
  }

  private static boolean attempt(java.util.concurrent.Callable<?> c) {
    try {
      Object v = c.call();
      return !(v instanceof java.util.Optional<?> o) || o.isPresent();
    } catch (Exception e) {
      return false;
    }
  }

  private static String version(Path binary) throws Exception {
    Process p =
        new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    p.waitFor(10, TimeUnit.SECONDS);
    return out;
  }

  /** A router's NATS transport and index, discovery: d1, d2 in decode, p1 in prefill. */
  private Router router(Map<String, String> passwords) throws Exception {
    PrefixIndex index = new PrefixIndex(PAGE);
    EventIngest ingest = new EventIngest(index, 10_000).start();
    NatsTransport transport =
        new NatsTransport(
            new RouterConfig.Nats(
                server.url(), STREAM, PREFIX, BUCKET, false, routerAuth(passwords)),
            PAGE,
            NatsTransportIT.settings().withHold(10_000, Duration.ofSeconds(1)));
    closing.add(ingest::close);
    closing.add(transport::close);
    transport.start(ingest);
    List<WorkerInfo> infos =
        List.of(worker(D1, "decode"), worker(D2, "decode"), worker(P1, "prefill"));
    ingest.workers(infos.stream().map(WorkerInfo::id).collect(Collectors.toSet()), Set.of());
    transport.workersChanged(infos);
    return new Router(ingest, transport);
  }

  private static WorkerInfo worker(String id, String pool) {
    return new WorkerInfo(
        WorkerId.of(id),
        "http://127.0.0.1:1",
        Role.MIXED,
        "vllm",
        1,
        null,
        null,
        WorkerInfo.Readiness.READY,
        pool);
  }

  private record Router(EventIngest ingest, NatsTransport transport) {
    long[] view(String worker) throws Exception {
      return ingest.onWriter(i -> i.viewHashes(SourceId.of(worker, 0))).get(10, TimeUnit.SECONDS);
    }
  }
}
