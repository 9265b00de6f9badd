package io.infera.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * deploy/grafana/infera-router.json queries only metrics the router exports: the meters declared in
 * router/.../admin/RouterMetrics.java are registered the same way in a Micrometer Prometheus
 * registry here, and its exposition names are the allowed names (the operator module does not
 * depend on the router, so the source is read).
 */
class GrafanaDashboardTest {

  static final String DASHBOARD = "deploy/grafana/infera-router.json";
  static final List<String> ROUTER_METRICS =
      List.of(
          "router/src/main/java/io/infera/router/admin/RouterMetrics.java",
          "router/src/main/java/io/infera/router/routing/RoutingMetrics.java",
          "router/src/main/java/io/infera/router/http/ProxyMetrics.java",
          "router/src/main/java/io/infera/router/runtime/IndexMeters.java",
          "router/src/main/java/io/infera/router/runtime/WorkerMeters.java");

  private static final Pattern BUILDER =
      Pattern.compile(
          "(Counter|Timer|DistributionSummary|Gauge|FunctionCounter)\\.builder\\(\\s*\"(infera\\.[a-z.]+)\"");
  private static final Pattern NAME = Pattern.compile("\"(infera\\.[a-z.]+)\"");
  private static final Pattern PROMQL_METRIC = Pattern.compile("\\binfera_[a-z0-9_]+\\b");

  /** A meter declared in RouterMetrics: its type and the options that change its names. */
  record Meter(String type, String name, boolean percentiles, String baseUnit) {}

  static List<Meter> declaredMeters() {
    StringBuilder all = new StringBuilder();
    ROUTER_METRICS.forEach(f -> all.append(InstallFiles.text(f)).append('\n'));
    String src = all.toString();
    List<Meter> out = new ArrayList<>();
    Set<String> seen = new TreeSet<>();
    Matcher b = BUILDER.matcher(src);
    while (b.find()) {
      String chain = chain(src, b.end());
      out.add(
          new Meter(
              b.group(1), b.group(2), chain.contains(".publishPercentiles("), baseUnit(chain)));
      seen.add(b.group(2));
    }
    // Names in the Map.of(...)/c.put(...) tables are registered as FunctionCounters.
    assertThat(src).contains("FunctionCounter.builder(name,");
    Matcher n = NAME.matcher(src);
    while (n.find()) {
      if (seen.add(n.group(1))) {
        out.add(new Meter("FunctionCounter", n.group(1), false, null));
      }
    }
    return out;
  }

  /** The builder chain up to its {@code .register(}. */
  private static String chain(String src, int from) {
    int end = src.indexOf(".register(", from);
    return end < 0 ? "" : src.substring(from, end);
  }

  private static String baseUnit(String chain) {
    Matcher m = Pattern.compile("\\.baseUnit\\(\"([a-z]+)\"\\)").matcher(chain);
    return m.find() ? m.group(1) : null;
  }

  /** Every series name the router's meters expose in Prometheus text. */
  static Set<String> exportedNames() {
    PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    for (Meter m : declaredMeters()) {
      switch (m.type()) {
        case "Counter" -> Counter.builder(m.name()).register(r).increment();
        case "FunctionCounter" -> FunctionCounter.builder(m.name(), r, x -> 1.0).register(r);
        case "Gauge" -> Gauge.builder(m.name(), () -> 1.0).baseUnit(m.baseUnit()).register(r);
        case "Timer" -> {
          Timer.Builder t = Timer.builder(m.name());
          if (m.percentiles()) {
            t.publishPercentiles(0.5, 0.99);
          }
          t.register(r).record(Duration.ofMillis(5));
        }
        case "DistributionSummary" ->
            DistributionSummary.builder(m.name()).baseUnit(m.baseUnit()).register(r).record(0.5);
        default -> throw new AssertionError(m.type());
      }
    }
    Set<String> names = new TreeSet<>();
    for (String line : r.scrape().split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        names.add(line.split("[{ ]", 2)[0]);
      }
    }
    return names;
  }

  static Set<String> dashboardMetrics() throws Exception {
    JsonNode d = new ObjectMapper().readTree(InstallFiles.text(DASHBOARD));
    Set<String> out = new TreeSet<>();
    List<String> queries = new ArrayList<>();
    d.findValues("expr").forEach(e -> queries.add(e.asText()));
    d.findValues("definition").forEach(e -> queries.add(e.asText()));
    for (String q : queries) {
      Matcher m = PROMQL_METRIC.matcher(q);
      while (m.find()) {
        out.add(m.group());
      }
    }
    return out;
  }

  @Test
  void routerMetricsSourceIsReadCompletely() {
    List<Meter> meters = declaredMeters();
    assertThat(meters).extracting(Meter::name).doesNotHaveDuplicates();
    assertThat(meters)
        .extracting(Meter::name)
        .contains(
            "infera.routing.predicted.hit.ratio",
            "infera.upstream.ttfb",
            "infera.routing.decision",
            "infera.kv.event.lag",
            "infera.worker.active.blocks",
            "infera.nats.messages");
    // Known names prove the conversion: a Counter gets _total, a gauge its unit, a timer _seconds.
    assertThat(exportedNames())
        .contains(
            "infera_requests_total",
            "infera_kv_event_lag_seconds",
            "infera_upstream_ttfb_seconds_sum",
            "infera_routing_decision_seconds",
            "infera_routing_predicted_hit_ratio_sum",
            "infera_nats_messages_total");
  }

  @Test
  void everyMetricTheDashboardQueriesIsExportedByTheRouter() throws Exception {
    Set<String> used = dashboardMetrics();
    assertThat(used).hasSizeGreaterThan(10);
    assertThat(exportedNames()).containsAll(used);
  }

  @Test
  void dashboardShowsHitRatioTtftDecisionsEventLagAndWorkerLoad() throws Exception {
    assertThat(dashboardMetrics())
        .contains(
            "infera_routing_predicted_hit_ratio_sum",
            "infera_routing_predicted_hit_ratio_count",
            "infera_upstream_ttfb_seconds_sum",
            "infera_upstream_ttfb_seconds_count",
            "infera_routing_decision_seconds_count",
            "infera_kv_event_lag_seconds",
            "infera_worker_active_blocks",
            "infera_worker_inflight");
    JsonNode d = new ObjectMapper().readTree(InstallFiles.text(DASHBOARD));
    assertThat(d.path("uid").asText()).isEqualTo("infera-router");
    Set<Integer> ids = new TreeSet<>();
    for (JsonNode p : d.path("panels")) {
      assertThat(ids.add(p.path("id").asInt())).as("unique panel id %s", p.path("id")).isTrue();
      for (JsonNode t : p.path("targets")) {
        assertThat(t.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
      }
    }
  }
}
