package io.infera.router.http;

import io.infera.router.config.ParityConfig;
import io.infera.router.json.Json;
import io.infera.router.kv.WorkerId;
import io.infera.router.parity.ParityCheck;
import io.infera.router.parity.ParitySchedule;
import io.infera.router.parity.ParityStatus;
import io.infera.router.parity.ProbeCase;
import io.infera.router.parity.RenderParity;
import io.infera.router.parity.WorkerParity;
import io.infera.router.routing.Fleet;
import io.infera.router.routing.RequestAnalyzer;
import io.infera.router.routing.RequestAnalyzer.Analyzed;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.Tokenized;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes each worker's rendering (docs/routing.md, "Render parity"): a timer on the event loop asks
 * {@link ParitySchedule} per worker and starts due probes; a probe sends the canonical set ({@link
 * ProbeCase#canonical}) one case after the other to the worker's {@code POST /tokenize} through the
 * router's Vert.x client — each call under {@code tokenizer.parity.timeoutMs}, its answer capped at
 * {@code tokenizer.parity.maxAnswerBytes} — and records the verdict in {@link RenderParity}. The
 * router's own token ids are computed once, on the worker pool. At most one probe per worker is in
 * flight; nothing here ever waits on the request path.
 */
final class RenderParityProber {

  private static final Logger log = LoggerFactory.getLogger(RenderParityProber.class);

  /** The {@code x-request-id} prefix of probe calls (the case name follows), for engines' logs. */
  static final String REQUEST_ID_PREFIX = "parity-";

  /** How often the schedule is consulted. */
  static final long TICK_MS = 1000;

  /** A probe case with the router's analysis and token ids. */
  record Local(ProbeCase probe, Analyzed analyzed, int[] ids) {}

  /** A case the worker refused: the probe stops with this status. */
  static final class NotCompared extends RuntimeException {
    final ParityStatus status;

    NotCompared(ParityStatus status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  private final Vertx vertx;
  private final HttpClient client;
  private final WorkerExecutor pool;
  private final RouterRuntime rt;
  private final RenderParity parity;
  private final ParityConfig config;
  private final ParitySchedule schedule;
  private final Map<WorkerId, ParitySchedule.State> states = new HashMap<>();
  private final Map<WorkerId, ParityStatus> lastLogged = new HashMap<>();
  private volatile List<Local> local;
  private boolean computingLocal;
  private boolean warnedLocal;
  private long timer = -1;

  RenderParityProber(Vertx vertx, HttpClient client, WorkerExecutor pool, RouterRuntime rt) {
    this.vertx = vertx;
    this.client = client;
    this.pool = pool;
    this.rt = rt;
    this.parity = rt.renderParity();
    this.config = rt.config().tokenizer().parity();
    this.schedule = new ParitySchedule(config.intervalMs());
  }

  void start() {
    if (parity.enabled() && timer < 0) {
      timer = vertx.setPeriodic(TICK_MS, id -> tick());
    }
  }

  void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  /** On the event loop: starts every due probe. */
  private void tick() {
    try {
      List<Local> cases = local;
      if (cases == null) {
        computeLocal();
        return;
      }
      long now = System.nanoTime() / 1_000_000L;
      Set<WorkerId> current = new HashSet<>();
      for (Fleet.Member m : rt.fleet().members()) {
        WorkerId id = m.info().id();
        current.add(id);
        ParitySchedule.State s = states.getOrDefault(id, ParitySchedule.State.NEW);
        long resets = rt.index().resets(id);
        Optional<ParitySchedule.Trigger> why = schedule.decide(s, now, resets, m.info().url());
        if (why.isPresent()) {
          states.put(id, s.started(now, resets, m.info().url()));
          probe(m, cases, why.get());
        }
      }
      states.keySet().retainAll(current);
      lastLogged.keySet().retainAll(current);
    } catch (RuntimeException e) {
      log.warn("render parity tick failed error={}", e.toString());
    }
  }

  /** The router's side of the set, once its tokenizer is loaded (cases it cannot render drop). */
  private void computeLocal() {
    PromptTokenizer tokenizer = rt.tokenizer();
    if (computingLocal || tokenizer == null) {
      return;
    }
    computingLocal = true;
    pool.executeBlocking(() -> localCases(rt.analyzer(), tokenizer, rt.config().model()), false)
        .onComplete(
            ar -> {
              computingLocal = false;
              if (ar.succeeded() && !ar.result().isEmpty()) {
                local = ar.result();
              } else if (!warnedLocal) {
                warnedLocal = true;
                log.warn(
                    "render parity: the router cannot render its probe set, workers not probed"
                        + " error={}",
                    ar.failed() ? ar.cause().toString() : "every case failed");
              }
            });
  }

  /** The cases the router can analyse and tokenize itself, with their ids. */
  static List<Local> localCases(RequestAnalyzer analyzer, PromptTokenizer tokenizer, String model) {
    List<Local> out = new ArrayList<>();
    for (ProbeCase c : ProbeCase.canonical(model)) {
      RequestAnalyzer.Result r = analyzer.analyze(c.bodyBytes(), c.endpoint());
      if (!(r instanceof RequestAnalyzer.Result.Ok ok)) {
        log.info("render parity: probe case not analysable case={}", c.name());
        continue;
      }
      try {
        Optional<Tokenized> t = tokenizer.tokenize(ok.analyzed().prompt());
        if (t.isPresent()) {
          out.add(new Local(c, ok.analyzed(), t.get().ids()));
        }
      } catch (Exception e) {
        log.info(
            "render parity: probe case not renderable case={} error={}", c.name(), e.toString());
      }
    }
    return List.copyOf(out);
  }

  private void probe(Fleet.Member m, List<Local> cases, ParitySchedule.Trigger why) {
    WorkerId id = m.info().id();
    Map<String, int[]> engine = new LinkedHashMap<>();
    Future<Void> chain = Future.succeededFuture();
    for (Local c : cases) {
      chain =
          chain.compose(
              v ->
                  ask(m, c)
                      .map(
                          ids -> {
                            engine.put(c.probe().name(), ids);
                            return null;
                          }));
    }
    chain
        .map(
            v -> {
              Map<String, int[]> router = new LinkedHashMap<>();
              cases.forEach(c -> router.put(c.probe().name(), c.ids()));
              return ParityCheck.verdict(router, engine, System.currentTimeMillis());
            })
        .recover(e -> Future.succeededFuture(notCompared(e)))
        .onComplete(
            ar -> {
              WorkerParity verdict = ar.result();
              ParitySchedule.State s = states.get(id);
              if (s != null) {
                states.put(id, s.ended(verdict.status() == ParityStatus.FAILED));
              }
              parity.record(id, verdict, why);
              logChange(id, verdict, why);
            });
  }

  /** One case's ids from the worker, under the timeout and answer cap. */
  private Future<int[]> ask(Fleet.Member m, Local c) {
    RequestOptions opts =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(m.info().url() + "/tokenize")
            .setConnectTimeout(config.timeoutMs())
            .setIdleTimeout(config.timeoutMs())
            .putHeader("content-type", "application/json")
            .putHeader("x-request-id", REQUEST_ID_PREFIX + c.probe().name());
    byte[] body =
        Json.write(EngineTokenizer.tokenizeRequest(c.analyzed(), m.info().engine()))
            .getBytes(StandardCharsets.UTF_8);
    int cap = (int) Math.min(Integer.MAX_VALUE - 8, config.maxAnswerBytes());
    HttpClientRequest[] sent = new HttpClientRequest[1];
    return client
        .request(opts)
        .compose(
            r -> {
              sent[0] = r;
              return r.send(Buffer.buffer(body));
            })
        .compose(
            resp -> {
              int status = resp.statusCode();
              if (status == 200) {
                return Upstream.readAtMost(resp, cap);
              }
              return Upstream.readAtMost(resp, 4096)
                  .recover(e -> Future.succeededFuture(Buffer.buffer()))
                  .compose(b -> Future.failedFuture(refusal(status, c, b.getBytes())));
            })
        .timeout(config.timeoutMs(), TimeUnit.MILLISECONDS)
        .onFailure(
            e -> {
              if (e instanceof TimeoutException && sent[0] != null) {
                sent[0].reset();
              }
            })
        .compose(
            buf -> pool.executeBlocking(() -> EngineTokenizer.tokenIds(buf.getBytes()), false));
  }

  /** What a status other than 200 means for parity. */
  static RuntimeException refusal(int status, Local c, byte[] body) {
    String snippet = EngineTokenizer.snippet(body);
    if (status == 404 || status == 405 || status == 501) {
      return new NotCompared(
          ParityStatus.UNSUPPORTED,
          "/tokenize answered " + status + " (the engine serves none): parity unknown");
    }
    if (status >= 400 && status < 500) {
      return new NotCompared(
          ParityStatus.UNSUPPORTED,
          "/tokenize refused case "
              + c.probe().name()
              + (c.probe().endpoint() == RequestAnalyzer.Endpoint.CHAT ? " (messages form)" : "")
              + " with "
              + status
              + (snippet.isEmpty() ? "" : ": " + cut(snippet))
              + "; parity unknown");
    }
    return new NotCompared(
        ParityStatus.FAILED,
        "/tokenize answered " + status + (snippet.isEmpty() ? "" : ": " + cut(snippet)));
  }

  static WorkerParity notCompared(Throwable e) {
    long now = System.currentTimeMillis();
    if (e instanceof NotCompared n) {
      return ParityCheck.notCompared(n.status, n.getMessage(), now);
    }
    String why;
    if (e instanceof TimeoutException) {
      why = "no /tokenize answer in time (tokenizer.parity.timeoutMs)";
    } else if (e instanceof Upstream.TooLong) {
      why = "/tokenize answer larger than tokenizer.parity.maxAnswerBytes";
    } else if (e instanceof IllegalStateException) {
      why = cut(e.getMessage());
    } else {
      why = "/tokenize failed: " + cut(e.toString());
    }
    return ParityCheck.notCompared(ParityStatus.FAILED, why, now);
  }

  private static String cut(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "…";
  }

  /** INFO when a worker's status changes; WARN when it starts diverging. */
  private void logChange(WorkerId id, WorkerParity v, ParitySchedule.Trigger why) {
    ParityStatus before = lastLogged.put(id, v.status());
    if (before == v.status()) {
      return;
    }
    if (v.status() == ParityStatus.DIVERGED) {
      log.warn(
          "render parity: worker renders differently from the router; its requests use engine"
              + " tokenization worker={} divergence={} trigger={} detail={}",
          id,
          v.divergence().label(),
          why.label(),
          v.detail());
    } else {
      log.info(
          "render parity worker={} status={} trigger={} detail={}",
          id,
          v.status().label(),
          why.label(),
          v.detail());
    }
  }
}
