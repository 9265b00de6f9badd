package io.infera.operator.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infera.operator.testing.FakeRouters;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The router's /v1/admin/status document, well-formed and not. */
class RouterStatusParserTest {

  /**
   * Shaped like router admin.AdminViews#status with the nats transport (fields it never reads too).
   */
  static final String ROUTER_STATUS =
      """
      {"ready":false,"not_ready_reasons":["nats: catching up"],"model":"Qwen/Qwen3-0.6B",
       "page_size":16,"policy":"kv-aware","overlap_weight":1.0,"discovery":"kubernetes",
       "events_transport":"nats",
       "workers":[
         {"id":"demo-workers-0","url":"http://10.0.0.1:8000","pool":"workers","role":"mixed",
          "engine":"vllm","dp_size":1,"readiness":"ready","healthy":true,"breaker":"closed",
          "in_flight":2,"active_blocks":10,"recent_blocks":1.5,"indexed_blocks":700,
          "kv_batches_applied":42,"block_size_expected":16,"block_size_seen":16},
         {"id":"demo-workers-1","url":"http://10.0.0.2:8000","pool":"workers","role":"mixed",
          "engine":"vllm","dp_size":2,"readiness":"ready","healthy":true,"breaker":"closed",
          "in_flight":0,"active_blocks":0,"recent_blocks":0.0,"indexed_blocks":300,
          "kv_batches_applied":9,"block_size_expected":16,"block_size_seen":null}],
       "sources":[
         {"worker_id":"demo-workers-0","dp_rank":0,"block_count":700,"last_seq":41,
          "degraded":false,"batches":42,"event_lag_seconds":0.012,"health":"healthy",
          "degraded_reason":null,"last_engine_seq":41,"last_stream_seq":99},
         {"worker_id":"demo-workers-1","dp_rank":0,"block_count":200,"last_seq":8,
          "degraded":true,"batches":9,"event_lag_seconds":3.5},
         {"worker_id":"demo-workers-1","dp_rank":1,"block_count":100,"last_seq":null,
          "degraded":false,"batches":0,"event_lag_seconds":null}],
       "nats":{"url":"nats://demo-nats:4222","connected":true,"caught_up":false},
       "load_sharing":{"peer_replicas":2},
       "index":{"entries":1000,"degraded_sources":1,"dropped":{"lower_tier":0},
                "unknown_source_messages":0,"writer_backlog":0},
       "hit_ratio":0.6123,
       "render_parity":{"status":"False","reason":"Diverged","message":"1 of 2 workers",
                        "diverged":["demo-workers-1"]},
       "tokenizer":{"mode":"local","path":"/models/qwen3"}}
      """;

  @Test
  void readsTheFieldsTheStatusShows() throws Exception {
    RouterView v = RouterStatusParser.parse(ROUTER_STATUS);
    assertThat(v)
        .isEqualTo(
            new RouterView(
                false,
                2,
                1000,
                3.5,
                0.6123,
                3,
                1,
                List.of(),
                null,
                new RouterView.RenderParity(
                    "False", "Diverged", "1 of 2 workers", List.of("demo-workers-1"))));
  }

  @Test
  void readsTheRenderParityCondition() throws Exception {
    assertThat(RouterStatusParser.parse("{\"workers\":[]}").renderParity()).isNull();
    assertThat(RouterStatusParser.parse("{\"workers\":[],\"render_parity\":null}").renderParity())
        .isNull();
    StringBuilder many = new StringBuilder();
    for (int i = 0; i < 25; i++) {
      many.append(i == 0 ? "" : ",").append("\"w").append(i).append("\"");
    }
    RouterView v =
        RouterStatusParser.parse(
            "{\"workers\":[],\"render_parity\":{\"status\":\"False\",\"reason\":\"Diverged\","
                + "\"message\":\""
                + "m".repeat(100_000)
                + "\",\"diverged\":["
                + many
                + "]}}");
    assertThat(v.renderParity().diverged()).hasSize(RouterView.MAX_NAMED);
    assertThat(v.renderParity().message())
        .hasSize(RouterView.IndexAccurate.MAX_MESSAGE + 1)
        .endsWith("…");
  }

  @Test
  void workersWhoseBlockSizeWasOverriddenAreNamedSorted() throws Exception {
    RouterView v =
        RouterStatusParser.parse(
            """
            {"workers":[
              {"id":"w2","block_size_expected":16,"block_size_seen":64},
              {"id":"w0","block_size_expected":16,"block_size_seen":16},
              {"id":"w1","block_size_expected":16,"block_size_seen":null},
              {"id":"w3","block_size_expected":16,"block_size_seen":128},
              {"block_size_expected":16,"block_size_seen":32},
              {"id":"w4"}]}
            """);
    assertThat(v.blockSizeOverridden())
        .containsExactly(
            "w2 (64, expected 16)", "w3 (128, expected 16)", "workers[4] (32, expected 16)");
    assertThat(RouterStatusParser.parse(ROUTER_STATUS).blockSizeOverridden()).isEmpty();
  }

  @Test
  void atMostTenOverriddenWorkersAreNamed() throws Exception {
    StringBuilder b = new StringBuilder("{\"workers\":[");
    for (int i = 0; i < 25; i++) {
      b.append(i == 0 ? "" : ",")
          .append("{\"id\":\"w")
          .append(String.format("%02d", i))
          .append("\",\"block_size_expected\":16,\"block_size_seen\":64}");
    }
    RouterView v = RouterStatusParser.parse(b.append("]}").toString());
    assertThat(v.blockSizeOverridden()).hasSize(RouterView.MAX_NAMED + 1);
    assertThat(v.blockSizeOverridden().get(0)).isEqualTo("w00 (64, expected 16)");
    assertThat(v.blockSizeOverridden().get(RouterView.MAX_NAMED)).isEqualTo("and 15 more");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"workers\":[1]}|workers[0]: expected an object",
        "{\"workers\":[{\"block_size_seen\":0}]}|workers[0].block_size_seen",
        "{\"workers\":[{\"block_size_seen\":\"64\"}]}|workers[0].block_size_seen",
        "{\"workers\":[{\"block_size_expected\":1.5}]}|workers[0].block_size_expected",
        "{\"workers\":[{\"id\":7,\"block_size_expected\":16,\"block_size_seen\":64}]}|workers[0].id",
      })
  void malformedBlockSizesNameTheField(String body, String field) {
    assertThatThrownBy(() -> RouterStatusParser.parse(body))
        .isInstanceOf(RouterStatusParser.MalformedStatus.class)
        .hasMessageContaining(field);
  }

  @Test
  void withoutIndexTheSourcesBlockCountsAreSummed() throws Exception {
    RouterView v =
        RouterStatusParser.parse(
            "{\"workers\":[],\"sources\":[{\"block_count\":5},{\"block_count\":7}]}");
    assertThat(v.indexedBlocks()).isEqualTo(12);
    assertThat(v.maxEventLagSeconds()).isNull();
    assertThat(v.hitRatio()).isNull();
    assertThat(v.ready()).isFalse();
  }

  @Test
  void aFreshRouterHasNullsEverywhere() throws Exception {
    RouterView v =
        RouterStatusParser.parse(
            "{\"ready\":true,\"workers\":[],\"sources\":null,\"index\":null,\"hit_ratio\":null}");
    assertThat(v).isEqualTo(new RouterView(true, 0, 0, null, null, 0, 0));
  }

  @Test
  void readsTheIndexAccurateCondition() throws Exception {
    RouterView v =
        RouterStatusParser.parse(
            "{\"workers\":[],\"index_accurate\":{\"status\":\"False\",\"reason\":\"PhantomHits\","
                + "\"message\":\"precision 0.5\",\"samples\":40,\"pools\":{}}}");
    assertThat(v.indexAccurate())
        .isEqualTo(new RouterView.IndexAccurate("False", "PhantomHits", "precision 0.5"));
    assertThat(RouterStatusParser.parse("{\"workers\":[]}").indexAccurate()).isNull();
    assertThat(RouterStatusParser.parse("{\"workers\":[],\"index_accurate\":null}").indexAccurate())
        .isNull();
    String huge = "m".repeat(100_000);
    RouterView h =
        RouterStatusParser.parse(
            "{\"workers\":[],\"index_accurate\":{\"status\":\"True\",\"reason\":\"Accurate\","
                + "\"message\":\""
                + huge
                + "\"}}");
    assertThat(h.indexAccurate().message())
        .hasSize(RouterView.IndexAccurate.MAX_MESSAGE + 1)
        .endsWith("…");
    String longReason = "A" + "b".repeat(64);
    assertThatThrownBy(
            () ->
                RouterStatusParser.parse(
                    "{\"workers\":[],\"index_accurate\":{\"status\":\"True\",\"reason\":\""
                        + longReason
                        + "\"}}"))
        .hasMessageContaining("index_accurate.reason");
  }

  @Test
  void theTestFakeSpeaksTheSameDocument() throws Exception {
    RouterView v = RouterStatusParser.parse(FakeRouters.status(3, 30, 0.5, 0.25, true));
    assertThat(v).isEqualTo(new RouterView(true, 3, 30, 0.5, 0.25, 3, 1));
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          ''                                               | empty body
          '   '                                            | empty body
          null                                             | expected a JSON object
          []                                               | expected a JSON object
          42                                               | expected a JSON object
          '"status"'                                       | expected a JSON object
          {                                                | not JSON
          '{"workers":[]} trailing'                        | not JSON
          '{"workers":[]}{"workers":[]}'                   | not JSON
          {}                                               | workers: expected an array
          '{"workers":5}'                                  | workers: expected an array
          '{"workers":{}}'                                 | workers: expected an array
          '{"workers":[],"ready":"yes"}'                   | ready: expected true or false
          '{"workers":[],"sources":{}}'                    | sources: expected an array
          '{"workers":[],"sources":[1]}'                   | sources[0]: expected an object
          '{"workers":[],"sources":[{"degraded":1}]}'      | degraded: expected true or false
          '{"workers":[],"sources":[{"event_lag_seconds":"1"}]}' | sources[0].event_lag_seconds: expected a number
          '{"workers":[],"sources":[{"event_lag_seconds":-1}]}'  | sources[0].event_lag_seconds: negative
          '{"workers":[],"sources":[{"block_count":-3}]}'  | sources[0].block_count: expected a non-negative integer
          '{"workers":[],"sources":[{"block_count":1.5}]}'  | sources[0].block_count: expected a non-negative integer
          '{"workers":[],"index":[]}'                      | index: expected an object
          '{"workers":[],"index":{"entries":"many"}}'      | index.entries: expected a non-negative integer
          '{"workers":[],"index":{"entries":99999999999999999999999}}' | index.entries: expected a non-negative integer
          '{"workers":[],"hit_ratio":1.5}'                 | hit_ratio: expected a number in [0, 1]
          '{"workers":[],"hit_ratio":-0.1}'                | hit_ratio: expected a number in [0, 1]
          '{"workers":[],"hit_ratio":"0.5"}'               | hit_ratio: expected a number
          '{"workers":[],"index_accurate":[]}'             | index_accurate: expected an object
          '{"workers":[],"index_accurate":{}}'             | index_accurate.status: expected True, False or Unknown
          '{"workers":[],"index_accurate":{"status":true,"reason":"Accurate"}}' | index_accurate.status: expected True, False or Unknown
          '{"workers":[],"index_accurate":{"status":"true","reason":"Accurate"}}' | index_accurate.status: expected True, False or Unknown
          '{"workers":[],"index_accurate":{"status":"True"}}' | index_accurate.reason: expected a CamelCase word
          '{"workers":[],"index_accurate":{"status":"True","reason":"not camel"}}' | index_accurate.reason: expected a CamelCase word
          '{"workers":[],"index_accurate":{"status":"True","reason":7}}' | index_accurate.reason: expected a CamelCase word
          '{"workers":[],"index_accurate":{"status":"True","reason":"Accurate","message":[]}}' | index_accurate.message: expected a string
          '{"workers":[],"render_parity":[]}'              | render_parity: expected an object
          '{"workers":[],"render_parity":{"status":"Maybe","reason":"Match"}}' | render_parity.status: expected True, False or Unknown
          '{"workers":[],"render_parity":{"status":"True","reason":"no"}}' | render_parity.reason: expected a CamelCase word
          '{"workers":[],"render_parity":{"status":"True","reason":"Match","message":1}}' | render_parity.message: expected a string
          '{"workers":[],"render_parity":{"status":"False","reason":"Diverged","diverged":"w1"}}' | render_parity.diverged: expected an array
          '{"workers":[],"render_parity":{"status":"False","reason":"Diverged","diverged":[1]}}' | render_parity.diverged[0]: expected a string
          """)
  void malformedDocumentsAreRefusedNamingTheField(String body, String message) {
    assertThatThrownBy(() -> RouterStatusParser.parse(body))
        .isInstanceOf(RouterStatusParser.MalformedStatus.class)
        .hasMessageContaining(message);
  }

  @Test
  void nullBodyIsRefused() {
    assertThatThrownBy(() -> RouterStatusParser.parse(null))
        .isInstanceOf(RouterStatusParser.MalformedStatus.class);
  }

  @Test
  void deepNestingIsRefusedNotAStackOverflow() {
    String deep = "{\"workers\":[],\"x\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
    assertThatThrownBy(() -> RouterStatusParser.parse(deep))
        .isInstanceOf(RouterStatusParser.MalformedStatus.class)
        .hasMessageContaining("not JSON");
  }

  @Test
  void hugeSumsSaturate() throws Exception {
    RouterView v =
        RouterStatusParser.parse(
            "{\"workers\":[],\"sources\":[{\"block_count\":9223372036854775807},"
                + "{\"block_count\":9223372036854775807}]}");
    assertThat(v.indexedBlocks()).isEqualTo(Long.MAX_VALUE);
  }
}
