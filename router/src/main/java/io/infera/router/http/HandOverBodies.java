package io.infera.router.http;

import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The request bodies of the prefill/decode hand-overs (docs/routing.md, "Prefill/decode
 * hand-over"), built from the client's parsed body, which is never changed. Pure.
 */
final class HandOverBodies {

  /** SGLang's default {@code --disaggregation-bootstrap-port} of a prefill server. */
  static final int SGLANG_BOOTSTRAP_PORT = 8998;

  /**
   * Why a vLLM decode half goes without {@code kv_transfer_params}: the prefill worker gave none to
   * pass on, so the decode worker computes the prompt itself. The label of {@code
   * infera_handover_without_kv_total}.
   */
  enum WithoutKv {
    /** {@code "kv_transfer_params": null}: the prefill ended without keeping its KV for decode. */
    NULL,
    /** No {@code kv_transfer_params} field: likely a prefill pool without a KV connector. */
    ABSENT,
    /** {@code "kv_transfer_params": {}}: nothing to pull (vLLM's own proxy treats it as none). */
    EMPTY;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * A vLLM decode body.
   *
   * @param withoutKv why it carries no {@code kv_transfer_params}, or null when it does
   */
  record Decode(byte[] body, WithoutKv withoutKv) {}

  private HandOverBodies() {}

  /**
   * vLLM's prefill half: one token, no stream, KV kept for a remote decode. {@code min_tokens} and
   * {@code min_completion_tokens} go: above the one token they would make the engine refuse the
   * copy (the decode half keeps the client's values, as vLLM's own disaggregation proxy does).
   */
  static byte[] vllmPrefill(Map<String, Object> body) {
    Map<String, Object> out = new LinkedHashMap<>(body);
    Map<String, Object> kv = new LinkedHashMap<>();
    kv.put("do_remote_decode", true);
    kv.put("do_remote_prefill", false);
    kv.put("remote_engine_id", null);
    kv.put("remote_block_ids", null);
    kv.put("remote_host", null);
    kv.put("remote_port", null);
    out.put("kv_transfer_params", kv);
    out.put("stream", false);
    out.remove("stream_options");
    out.remove("min_tokens");
    out.remove("min_completion_tokens");
    out.put("max_tokens", 1);
    if (out.containsKey("max_completion_tokens")) {
      out.put("max_completion_tokens", 1);
    }
    return utf8(out);
  }

  /**
   * vLLM's decode half: the client's request as it came, plus where the prefill worker holds the
   * KV; without them when the prefill answer has none ({@link WithoutKv}).
   *
   * @param prefillAnswer the prefill worker's whole answer (outside input: any bytes)
   * @throws IllegalStateException naming the prefill worker when the answer is not a JSON object or
   *     its {@code kv_transfer_params} is neither an object nor null
   */
  static Decode vllmDecode(Map<String, Object> body, byte[] prefillAnswer, String prefillWorker) {
    DecodeMap d = decodeMap(body, prefillAnswer, prefillWorker);
    return new Decode(utf8(d.body()), d.withoutKv());
  }

  /** A decode body before encoding; {@code withoutKv} as in {@link Decode}. */
  private record DecodeMap(Map<String, Object> body, WithoutKv withoutKv) {}

  private static DecodeMap decodeMap(
      Map<String, Object> body, byte[] prefillAnswer, String prefillWorker) {
    Object answer;
    try {
      answer = Json.parse(new String(prefillAnswer, StandardCharsets.UTF_8));
    } catch (JsonException e) {
      throw new IllegalStateException(
          "prefill worker " + prefillWorker + " answered with invalid JSON: " + e.getMessage());
    }
    if (!(answer instanceof Map<?, ?> m)) {
      throw new IllegalStateException(
          "prefill worker " + prefillWorker + " answered with JSON that is not an object");
    }
    Map<String, Object> out = new LinkedHashMap<>(body);
    // The client's own kv_transfer_params are not passed on: only the prefill worker's are.
    out.remove("kv_transfer_params");
    if (!m.containsKey("kv_transfer_params")) {
      return new DecodeMap(out, WithoutKv.ABSENT);
    }
    Object kv = m.get("kv_transfer_params");
    if (kv == null) {
      return new DecodeMap(out, WithoutKv.NULL);
    }
    if (!(kv instanceof Map<?, ?> params)) {
      throw new IllegalStateException(
          "prefill worker "
              + prefillWorker
              + " answered kv_transfer_params that are not an object (is its"
              + " --kv-transfer-config a NixlConnector?)");
    }
    if (params.isEmpty()) {
      return new DecodeMap(out, WithoutKv.EMPTY);
    }
    out.put("kv_transfer_params", kv);
    return new DecodeMap(out, null);
  }

  /**
   * ATOM's prefill half (its Mooncake and MORI-IO connectors, docs/atom.md): as vLLM's, one token
   * and no stream, but {@code kv_transfer_params} carry only the two switches ATOM reads.
   */
  static byte[] atomPrefill(Map<String, Object> body) {
    Map<String, Object> out = new LinkedHashMap<>(body);
    Map<String, Object> kv = new LinkedHashMap<>();
    kv.put("do_remote_decode", true);
    kv.put("do_remote_prefill", false);
    out.put("kv_transfer_params", kv);
    out.put("stream", false);
    out.remove("stream_options");
    out.remove("min_tokens");
    out.remove("min_completion_tokens");
    out.put("max_tokens", 1);
    if (out.containsKey("max_completion_tokens")) {
      out.put("max_completion_tokens", 1);
    }
    return utf8(out);
  }

  /**
   * ATOM's decode half: as vLLM's, plus what ATOM's decode side reads about the prefill worker's
   * layout and its answer leaves out: {@code remote_tp_size} (the answer's {@code tp_size}, the
   * prefill engine's tensor-parallel size), {@code remote_dp_rank} (the answer's {@code dp_rank},
   * else the rank the router picked) and {@code remote_dp_size} (the prefill worker's ranks).
   * Fields the answer already has are kept.
   *
   * @param prefillRank the data-parallel rank the prefill half went to
   * @param prefillDpSize the prefill worker's data-parallel ranks
   * @throws IllegalStateException as {@link #vllmDecode}
   */
  static Decode atomDecode(
      Map<String, Object> body,
      byte[] prefillAnswer,
      String prefillWorker,
      int prefillRank,
      int prefillDpSize) {
    DecodeMap d = decodeMap(body, prefillAnswer, prefillWorker);
    if (d.withoutKv() != null) {
      return new Decode(utf8(d.body()), d.withoutKv());
    }
    Map<String, Object> out = d.body();
    @SuppressWarnings("unchecked")
    Map<String, Object> kv =
        new LinkedHashMap<>((Map<String, Object>) out.get("kv_transfer_params"));
    if (!kv.containsKey("remote_tp_size") && kv.get("tp_size") instanceof Number tp) {
      kv.put("remote_tp_size", tp);
    }
    if (!kv.containsKey("remote_dp_rank")) {
      kv.put("remote_dp_rank", kv.get("dp_rank") instanceof Number r ? r : prefillRank);
    }
    kv.putIfAbsent("remote_dp_size", prefillDpSize);
    out.put("kv_transfer_params", kv);
    return new Decode(utf8(out), null);
  }

  /** SGLang's hand-over: the request with the prefill server's bootstrap address and a room. */
  static byte[] sglangBootstrap(Map<String, Object> body, String host, int port, long room) {
    Map<String, Object> out = new LinkedHashMap<>(body);
    out.put("bootstrap_host", host);
    out.put("bootstrap_port", port);
    out.put("bootstrap_room", room);
    return utf8(out);
  }

  private static byte[] utf8(Map<String, Object> body) {
    return Json.write(body).getBytes(StandardCharsets.UTF_8);
  }
}
