package io.infera.router.http;

import io.infera.router.kv.RequestHashes;
import io.infera.router.kv.WorkerId;
import io.infera.router.parity.RenderParity;
import io.infera.router.routing.Eligibility;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestAnalyzer.Analyzed;
import io.infera.router.tokenize.Prompt;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request path of render parity (docs/routing.md, "Render parity"): for a request the router
 * tokenized itself, the workers known to render it differently get their own hashes — one {@code
 * /tokenize} per template variant (workers with equal probe answers share it), asked of a routable
 * worker of that variant. When no such worker answers, that variant's workers get empty hashes (no
 * cache term: an estimate by load) instead of the router's mismatching ones. Nothing is asked when
 * no worker diverges (the common case costs one volatile read).
 */
final class ParityTokens {

  private static final Logger log = LoggerFactory.getLogger(ParityTokens.class);

  /** Variants tokenized per request at most; workers of further ones get the estimate. */
  static final int MAX_VARIANTS = 4;

  private final RenderParity parity;
  private final Fleet fleet;
  private final EngineTokenizer engine;
  private final boolean counted;

  /**
   * @param counted whether requests are counted in {@code infera_render_parity_requests_total}
   *     (false for {@code /v1/admin/explain})
   */
  ParityTokens(RenderParity parity, Fleet fleet, EngineTokenizer engine, boolean counted) {
    this.parity = parity;
    this.fleet = fleet;
    this.engine = engine;
    this.counted = counted;
  }

  /** Per diverging worker, the request's hashes from its own rendering; empty when none diverge. */
  Future<Map<WorkerId, RequestHashes>> own(Analyzed analyzed, String requestId) {
    if (!parity.enabled() || analyzed.hashes().isEmpty()) {
      return Future.succeededFuture(Map.of());
    }
    boolean chat;
    if (analyzed.prompt() instanceof Prompt.Chat) {
      chat = true;
    } else if (analyzed.prompt() instanceof Prompt.Text) {
      chat = false;
    } else {
      return Future.succeededFuture(Map.of()); // token ids: nothing to render differently
    }
    List<RenderParity.Variant> variants = parity.variants(chat);
    if (variants.isEmpty()) {
      return Future.succeededFuture(Map.of());
    }
    List<Future<Map<WorkerId, RequestHashes>>> parts = new ArrayList<>();
    for (int i = 0; i < variants.size(); i++) {
      RenderParity.Variant v = variants.get(i);
      Fleet.Member asked = i < MAX_VARIANTS ? routable(v) : null;
      if (asked == null) {
        parts.add(Future.succeededFuture(unknown(v)));
        continue;
      }
      parts.add(
          engine
              .engineIds(analyzed, asked, requestId)
              .map(
                  ids -> {
                    RequestHashes h = engine.hash(ids, analyzed.firstParent());
                    Map<WorkerId, RequestHashes> m = new HashMap<>();
                    v.workers().forEach(w -> m.put(w, h));
                    return m;
                  })
              .recover(
                  e -> {
                    log.debug(
                        "render parity: worker tokenize failed request_id={} worker={} error={}",
                        requestId,
                        asked.info().id(),
                        e.toString());
                    return Future.succeededFuture(unknown(v));
                  }));
    }
    return Future.all(parts)
        .map(
            all -> {
              Map<WorkerId, RequestHashes> out = new HashMap<>();
              boolean estimated = false;
              for (int i = 0; i < parts.size(); i++) {
                Map<WorkerId, RequestHashes> m = all.resultAt(i);
                for (Map.Entry<WorkerId, RequestHashes> e : m.entrySet()) {
                  estimated |= e.getValue().isEmpty();
                  out.put(e.getKey(), e.getValue());
                }
              }
              if (!counted) {
                return out;
              }
              if (estimated) {
                parity.usedEstimate();
              } else {
                parity.usedEngineTokens();
              }
              return out;
            });
  }

  /** A worker of the variant that may take requests now (it can tokenize), or null. */
  private Fleet.Member routable(RenderParity.Variant v) {
    for (WorkerId id : v.workers()) {
      Fleet.Member m = fleet.member(id);
      if (m != null && m.eligibility(Set.of()) == Eligibility.ELIGIBLE) {
        return m;
      }
    }
    return null;
  }

  private static Map<WorkerId, RequestHashes> unknown(RenderParity.Variant v) {
    Map<WorkerId, RequestHashes> m = new HashMap<>();
    v.workers().forEach(w -> m.put(w, RequestHashes.empty()));
    return m;
  }
}
