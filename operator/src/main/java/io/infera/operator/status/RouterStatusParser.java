package io.infera.operator.status;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses the router's {@code GET /v1/admin/status} document (router module, {@code
 * admin.AdminViews#status}) into a {@link RouterView}.
 *
 * <p>Reads only the fields the operator shows: {@code ready}, {@code workers} (an array, counted),
 * {@code index.entries} (else the sum of {@code sources[].block_count}), {@code
 * sources[].event_lag_seconds} (the largest), {@code sources[].degraded}, {@code hit_ratio}, and
 * per worker {@code id}, {@code block_size_expected} and {@code block_size_seen} (both positive
 * integers or null; a worker whose seen size differs is named in {@link
 * RouterView#blockSizeOverridden}), {@code index_accurate.status|reason|message} and {@code
 * render_parity.status|reason|message|diverged} (both optional). Unknown fields are ignored; a
 * field of the wrong type is an error naming it.
 */
public final class RouterStatusParser {

  /** Thrown for a document that is not a router status; the message names the field. */
  public static final class MalformedStatus extends Exception {
    public MalformedStatus(String message) {
      super(message);
    }
  }

  private static final ObjectMapper JSON =
      new ObjectMapper(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder().maxNestingDepth(64).build())
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private RouterStatusParser() {}

  public static RouterView parse(String body) throws MalformedStatus {
    if (body == null || body.isBlank()) {
      throw new MalformedStatus("empty body");
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw new MalformedStatus("not JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw new MalformedStatus("expected a JSON object");
    }
    boolean ready = bool(root, "ready", false);
    JsonNode workers = root.get("workers");
    if (workers == null || !workers.isArray()) {
      throw new MalformedStatus("workers: expected an array");
    }
    List<String> overridden = new ArrayList<>();
    for (int i = 0; i < workers.size(); i++) {
      JsonNode w = workers.get(i);
      String f = "workers[" + i + "]";
      if (!w.isObject()) {
        throw new MalformedStatus(f + ": expected an object");
      }
      Long expected = size(w, f + ".block_size_expected", "block_size_expected");
      Long seen = size(w, f + ".block_size_seen", "block_size_seen");
      if (expected != null && seen != null && !expected.equals(seen)) {
        JsonNode id = w.get("id");
        if (id != null && !id.isNull() && !id.isTextual()) {
          throw new MalformedStatus(f + ".id: expected a string");
        }
        String name = id == null || id.isNull() ? f : truncate(id.textValue());
        overridden.add(name + " (" + seen + ", expected " + expected + ")");
      }
    }
    overridden.sort(null);
    if (overridden.size() > RouterView.MAX_NAMED) {
      int more = overridden.size() - RouterView.MAX_NAMED;
      overridden = new ArrayList<>(overridden.subList(0, RouterView.MAX_NAMED));
      overridden.add("and " + more + " more");
    }
    int sourceCount = 0;
    int degraded = 0;
    long blocks = 0;
    Double maxLag = null;
    JsonNode sources = root.get("sources");
    if (sources != null && !sources.isNull()) {
      if (!sources.isArray()) {
        throw new MalformedStatus("sources: expected an array");
      }
      for (int i = 0; i < sources.size(); i++) {
        JsonNode s = sources.get(i);
        String f = "sources[" + i + "]";
        if (!s.isObject()) {
          throw new MalformedStatus(f + ": expected an object");
        }
        sourceCount++;
        if (bool(s, "degraded", false)) {
          degraded++;
        }
        blocks = saturatedAdd(blocks, count(s, f + ".block_count", "block_count"));
        Double lag = number(s, f + ".event_lag_seconds", "event_lag_seconds");
        if (lag != null) {
          if (lag < 0) {
            throw new MalformedStatus(f + ".event_lag_seconds: negative");
          }
          maxLag = maxLag == null ? lag : Math.max(maxLag, lag);
        }
      }
    }
    JsonNode index = root.get("index");
    if (index != null && !index.isNull()) {
      if (!index.isObject()) {
        throw new MalformedStatus("index: expected an object");
      }
      if (index.has("entries")) {
        blocks = count(index, "index.entries", "entries");
      }
    }
    Double hit = number(root, "hit_ratio", "hit_ratio");
    if (hit != null && (hit < 0 || hit > 1)) {
      throw new MalformedStatus("hit_ratio: expected a number in [0, 1], got " + hit);
    }
    return new RouterView(
        ready,
        workers.size(),
        blocks,
        maxLag,
        hit,
        sourceCount,
        degraded,
        overridden,
        indexAccurate(root.get("index_accurate")),
        renderParity(root.get("render_parity")));
  }

  private static final java.util.Set<String> TRI_STATE =
      java.util.Set.of("True", "False", "Unknown");

  /** {@code render_parity}, or null when absent. */
  private static RouterView.RenderParity renderParity(JsonNode n) throws MalformedStatus {
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isObject()) {
      throw new MalformedStatus("render_parity: expected an object");
    }
    JsonNode status = n.get("status");
    if (status == null || !status.isTextual() || !TRI_STATE.contains(status.textValue())) {
      throw new MalformedStatus("render_parity.status: expected True, False or Unknown");
    }
    JsonNode reason = n.get("reason");
    if (reason == null || !reason.isTextual() || !REASON.matcher(reason.textValue()).matches()) {
      throw new MalformedStatus("render_parity.reason: expected a CamelCase word");
    }
    JsonNode message = n.get("message");
    String text = "";
    if (message != null && !message.isNull()) {
      if (!message.isTextual()) {
        throw new MalformedStatus("render_parity.message: expected a string");
      }
      text = message.textValue();
      if (text.length() > RouterView.IndexAccurate.MAX_MESSAGE) {
        text = text.substring(0, RouterView.IndexAccurate.MAX_MESSAGE) + "…";
      }
    }
    List<String> diverged = new ArrayList<>();
    JsonNode d = n.get("diverged");
    if (d != null && !d.isNull()) {
      if (!d.isArray()) {
        throw new MalformedStatus("render_parity.diverged: expected an array");
      }
      for (int i = 0; i < d.size(); i++) {
        if (!d.get(i).isTextual()) {
          throw new MalformedStatus("render_parity.diverged[" + i + "]: expected a string");
        }
        if (diverged.size() < RouterView.MAX_NAMED) {
          diverged.add(truncate(d.get(i).textValue()));
        }
      }
    }
    return new RouterView.RenderParity(status.textValue(), reason.textValue(), text, diverged);
  }

  private static final java.util.regex.Pattern REASON =
      java.util.regex.Pattern.compile("[A-Z][A-Za-z0-9]{0,63}");

  /** {@code index_accurate}, or null when absent. */
  private static RouterView.IndexAccurate indexAccurate(JsonNode n) throws MalformedStatus {
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isObject()) {
      throw new MalformedStatus("index_accurate: expected an object");
    }
    JsonNode status = n.get("status");
    if (status == null
        || !status.isTextual()
        || !java.util.Set.of("True", "False", "Unknown").contains(status.textValue())) {
      throw new MalformedStatus("index_accurate.status: expected True, False or Unknown");
    }
    JsonNode reason = n.get("reason");
    if (reason == null || !reason.isTextual() || !REASON.matcher(reason.textValue()).matches()) {
      throw new MalformedStatus("index_accurate.reason: expected a CamelCase word");
    }
    JsonNode message = n.get("message");
    String text = "";
    if (message != null && !message.isNull()) {
      if (!message.isTextual()) {
        throw new MalformedStatus("index_accurate.message: expected a string");
      }
      text = message.textValue();
      if (text.length() > RouterView.IndexAccurate.MAX_MESSAGE) {
        text = text.substring(0, RouterView.IndexAccurate.MAX_MESSAGE) + "…";
      }
    }
    return new RouterView.IndexAccurate(status.textValue(), reason.textValue(), text);
  }

  /** Worker ids are pod names (≤ 253 characters); anything longer is cut for the message. */
  private static String truncate(String s) {
    return s.length() <= 253 ? s : s.substring(0, 253) + "…";
  }

  private static Long size(JsonNode n, String field, String key) throws MalformedStatus {
    JsonNode v = n.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 1) {
      throw new MalformedStatus(field + ": expected a positive integer");
    }
    return v.longValue();
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return r < 0 ? Long.MAX_VALUE : r;
  }

  private static boolean bool(JsonNode n, String key, boolean dflt) throws MalformedStatus {
    JsonNode v = n.get(key);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isBoolean()) {
      throw new MalformedStatus(key + ": expected true or false");
    }
    return v.booleanValue();
  }

  private static Double number(JsonNode n, String field, String key) throws MalformedStatus {
    JsonNode v = n.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isNumber() || !Double.isFinite(v.doubleValue())) {
      throw new MalformedStatus(field + ": expected a number");
    }
    return v.doubleValue();
  }

  private static long count(JsonNode n, String field, String key) throws MalformedStatus {
    JsonNode v = n.get(key);
    if (v == null || v.isNull()) {
      return 0;
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0) {
      throw new MalformedStatus(field + ": expected a non-negative integer");
    }
    return v.longValue();
  }
}
