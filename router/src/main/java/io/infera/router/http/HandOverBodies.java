package io.infera.router.http;

import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The request bodies of the prefill/decode hand-overs (docs/routing.md, "Prefill/decode
 * hand-over"), built from the client's parsed body, which is never changed. Pure.
 */
final class HandOverBodies {

  /** SGLang's default {@code --disaggregation-bootstrap-port} of a prefill server. */
  static final int SGLANG_BOOTSTRAP_PORT = 8998;

  private HandOverBodies() {}

  /** vLLM's prefill half: one token, no stream, KV kept for a remote decode. */
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
    out.put("max_tokens", 1);
    if (out.containsKey("max_completion_tokens")) {
      out.put("max_completion_tokens", 1);
    }
    return utf8(out);
  }

  /**
   * vLLM's decode half: the client's request plus where the prefill worker holds the KV.
   *
   * @param prefillAnswer the prefill worker's whole answer (outside input: any bytes)
   * @throws IllegalStateException naming the prefill worker when the answer is not JSON or has no
   *     {@code kv_transfer_params} object
   */
  static byte[] vllmDecode(Map<String, Object> body, byte[] prefillAnswer, String prefillWorker) {
    Object answer;
    try {
      answer = Json.parse(new String(prefillAnswer, StandardCharsets.UTF_8));
    } catch (JsonException e) {
      throw new IllegalStateException(
          "prefill worker " + prefillWorker + " answered with invalid JSON: " + e.getMessage());
    }
    Object kv = answer instanceof Map<?, ?> m ? m.get("kv_transfer_params") : null;
    if (!(kv instanceof Map<?, ?>)) {
      throw new IllegalStateException(
          "prefill worker "
              + prefillWorker
              + " returned no kv_transfer_params (is its --kv-transfer-config set?)");
    }
    Map<String, Object> out = new LinkedHashMap<>(body);
    out.put("kv_transfer_params", kv);
    return utf8(out);
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
