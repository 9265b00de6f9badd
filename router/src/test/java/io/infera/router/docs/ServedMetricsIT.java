package io.infera.router.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.engineload.EngineLoadTable;
import io.infera.router.engineload.ScrapeOutcome;
import io.infera.router.events.nats.NatsTransport;
import io.infera.router.events.nats.SharedLoad;
import io.infera.router.events.zmq.ZmqTransport;
import io.infera.router.http.RouterHarness;
import io.infera.router.http.StubEngine;
import io.infera.router.json.Json;
import io.infera.router.policy.LoadTracker;
import io.infera.router.relay.RelayMetricsScrape;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every metric the README, {@code docs/}, {@code config/router/reference.yaml} and the Grafana
 * dashboard name is one the router or the relay really serves. The served names come from a live
 * router (static discovery, a stub engine, a few requests so the tagged meters exist) plus the
 * meters every transport and the load sharing bind, and from a started relay's {@code /metrics}.
 */
class ServedMetricsIT {

  /** Backticked Prometheus names, e.g. {@code `infera_requests_total{status="200"}`}. */
  private static final Pattern DOCUMENTED =
      Pattern.compile("`(infera_[a-z0-9_]+)(?:\\{[^`]*\\})?`");

  private static final Pattern PROMQL = Pattern.compile("\\binfera_[a-z0-9_]+\\b");

  /** Backticked identifiers of the form of a metric that are something else. */
  private static final Set<String> NOT_METRICS = Set.of("infera_kv_snapshots"); // the KV bucket

  static Vertx vertx;
  static Set<String> routerNames;
  static Set<String> relayNames;

  @BeforeAll
  static void serve() throws Exception {
    vertx = Vertx.vertx();
    StubEngine engine = new StubEngine(vertx, "w0");
    RouterHarness r = RouterHarness.start(vertx, List.of(engine), null);
    PrometheusMeterRegistry transports = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    SharedLoad sharing = null;
    try {
      // The first health probe may time out on a loaded machine: wait for a routable worker.
      await().atMost(Duration.ofSeconds(20)).until(() -> r.get("/ready").statusCode() == 200);
      String chat =
          "{\"messages\":[{\"role\":\"user\",\"content\":\"" + "word ".repeat(40) + "\"}]}";
      assertThat(r.post("/v1/chat/completions", chat).statusCode()).isEqualTo(200);
      assertThat(r.post("/v1/completions", "{\"prompt\":[\"a\",\"b\"]}").statusCode())
          .isEqualTo(200); // a batch prompt: routed by load, counted as a tokenize failure
      RouterConfig cfg =
          ConfigLoader.parse(
              "model: m\ntokenizer: {path: 'builtin:qwen3'}\n"
                  + "discovery: {workers: [{id: w0, url: 'http://127.0.0.1:1'}]}\n");
      try (ZmqTransport zmq = new ZmqTransport();
          NatsTransport nats = new NatsTransport(cfg.events().nats(), 16)) {
        zmq.bindTo(transports);
        nats.bindTo(transports);
        sharing =
            SharedLoad.connect(
                "nats://127.0.0.1:1",
                "infera.load",
                new LoadTracker(),
                SharedLoad.Settings.defaults());
        sharing.bindTo(transports);
        // Engine-reported load is off by default: bind a table that has scraped one worker.
        EngineLoadTable engineTable =
            new EngineLoadTable(cfg.engineLoad().withEnabled(true), System::currentTimeMillis);
        engineTable.bindTo(transports);
        engineTable.failed(io.infera.router.kv.WorkerId.of("w0"), ScrapeOutcome.TIMEOUT);
        engineTable.scrapeTook(1_000_000);
        // Decode input demand is off by default: its meters after one decode pick.
        io.infera.router.policy.DecodeDemand demandTable =
            new io.infera.router.policy.DecodeDemand();
        io.infera.router.policy.DemandTarget target =
            new io.infera.router.policy.DemandTarget(io.infera.router.kv.WorkerId.of("d0"), 0, 1);
        new io.infera.router.routing.DecodeDemandMeters(demandTable, transports)
            .decided(
                new io.infera.router.policy.DemandPick(
                    io.infera.router.config.DecodeDemandConfig.Mode.ON,
                    io.infera.router.policy.InputTokens.NONE,
                    List.of(),
                    target,
                    target,
                    target,
                    demandTable.reserve(target, 10)));
        routerNames = names(r.runtime.scrape() + "\n" + transports.scrape());
      }
    } finally {
      if (sharing != null) {
        sharing.close();
      }
      r.close();
      engine.close();
    }
    relayNames = names(RelayMetricsScrape.scrape());
  }

  @AfterAll
  static void close() {
    vertx.close();
  }

  /** Sample names and TYPE names of a Prometheus text exposition. */
  static Set<String> names(String exposition) {
    Set<String> out = new TreeSet<>();
    for (String line : exposition.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        out.add(line.split(" ")[2]);
      } else if (!line.isBlank() && !line.startsWith("#")) {
        out.add(line.split("[{ ]", 2)[0]);
      }
    }
    return out;
  }

  static Set<String> documented() throws IOException {
    List<Path> files = new ArrayList<>(DocumentedConfigKeysTest.documents());
    Set<String> out = new TreeSet<>();
    for (Path f : files) {
      Matcher m = DOCUMENTED.matcher(Files.readString(f));
      while (m.find()) {
        if (!NOT_METRICS.contains(m.group(1))) {
          out.add(m.group(1));
        }
      }
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  static Set<String> dashboard() throws Exception {
    Path f = DocumentedConfigKeysTest.repo().resolve("deploy/grafana/infera-router.json");
    Object d = Json.parse(Files.readString(f));
    Set<String> out = new TreeSet<>();
    collect(d, out);
    return out;
  }

  private static void collect(Object node, Set<String> out) {
    if (node instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if ((e.getKey().equals("expr") || e.getKey().equals("definition"))
            && e.getValue() instanceof String q) {
          Matcher mm = PROMQL.matcher(q);
          while (mm.find()) {
            out.add(mm.group());
          }
        } else {
          collect(e.getValue(), out);
        }
      }
    } else if (node instanceof List<?> l) {
      l.forEach(x -> collect(x, out));
    }
  }

  @Test
  void theServedSetsAreComplete() {
    // Known names of each kind prove the collection: tagged meters, transports, load sharing.
    assertThat(routerNames)
        .contains(
            "infera_requests_total",
            "infera_upstream_ttfb_seconds",
            "infera_tokenize_failures_total",
            "infera_worker_inflight",
            "infera_kv_event_lag_seconds",
            "infera_zmq_messages_total",
            "infera_nats_messages_total",
            "infera_load_sharing_replicas");
    assertThat(relayNames).contains("infera_relay_published_total", "infera_relay_ready");
  }

  @Test
  void everyDocumentedRouterAndRelayMetricIsServed() throws IOException {
    Set<String> docs = documented();
    assertThat(docs).hasSizeGreaterThan(30);
    List<String> missing = new ArrayList<>();
    for (String name : docs) {
      Set<String> served = name.startsWith("infera_relay_") ? relayNames : routerNames;
      if (!served.contains(name)) {
        missing.add(name);
      }
    }
    assertThat(missing).as("documented but not served").isEmpty();
  }

  @Test
  void everyMetricTheDashboardQueriesIsServed() throws Exception {
    Set<String> used = dashboard();
    assertThat(used)
        .contains(
            "infera_routing_predicted_hit_ratio_sum",
            "infera_upstream_ttfb_seconds_count",
            "infera_worker_active_blocks");
    assertThat(routerNames).containsAll(used);
  }

  @Test
  void aNameThatIsNotServedIsCaught() {
    assertThat(routerNames).doesNotContain("infera_routing_decision_total");
  }
}
