package io.infera.sim.sched;

import io.infera.sim.kvcache.BlockManager;
import io.infera.sim.kvcache.Sequence;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import net.openhft.hashing.LongHashFunction;

/**
 * The simulated engine loop, modelled on vLLM v1's scheduler: continuous batching with chunked
 * prefill over a prefix-caching {@link BlockManager}.
 *
 * <p>Each {@link #schedule} plans one step under {@code maxNumSeqs} running sequences and a budget
 * of {@code maxNumBatchedTokens}: first every decoding sequence gets one token (a decode that finds
 * no block preempts the most recently admitted running sequence, which is released and put back at
 * the head of the waiting queue to be recomputed later), then partially prefilled sequences
 * continue, then waiting requests are admitted FCFS until one does not fit (head-of-line; none are
 * admitted in a step that preempted). Cached prompt tokens cost nothing. {@link #complete} applies
 * the step at its end time: KV becomes computed (and cached), tokens are emitted, finished requests
 * release their blocks.
 *
 * <p>Driving it: the caller owns the clock. Call {@code schedule(now)}; if it returns a step, wait
 * (really or virtually) until {@link Step#endMs()}, then call {@code complete(step)} and dispatch
 * its events; repeat. When {@code schedule} returns null the engine is idle until the next {@link
 * #submit}. {@code submit} and {@code cancel} may be called between or during steps; only one step
 * is in flight at a time.
 *
 * <p>Not thread-safe: one engine thread owns the core and its block manager.
 */
public final class EngineCore {

  /** Lowest generated token id (inclusive). */
  public static final int MIN_GENERATED_TOKEN = 1000;

  /** Highest generated token id (exclusive). */
  public static final int MAX_GENERATED_TOKEN = 100_000;

  private static final LongHashFunction XX3 = LongHashFunction.xx3();

  /**
   * A planned engine step: when it starts, how long it takes and the batch's shape.
   *
   * @param startMs step start, in the caller's clock (ms); never before the previous step's end
   * @param durationMs from the cost model (ms)
   * @param prefillTokens uncached prompt tokens computed in the step
   * @param decodeSeqs sequences decoding one token
   * @param batchSize sequences in the step (decoding plus prefilling)
   */
  public record Step(
      double startMs, double durationMs, int prefillTokens, int decodeSeqs, int batchSize) {

    /** When the step's results are available: {@code startMs + durationMs}. */
    public double endMs() {
      return startMs + durationMs;
    }
  }

  /**
   * Counters for the engine's /metrics, as one consistent snapshot (safe to hand to another
   * thread).
   *
   * @param running requests holding KV blocks (vLLM num_requests_running)
   * @param waiting requests queued for admission, preempted ones included (num_requests_waiting)
   * @param kvUsage referenced blocks / capacity, 0..1 (gpu_cache_usage_perc / kv_cache_usage_perc)
   * @param cachedBlocks blocks in the prefix cache (referenced or evictable)
   * @param prefixQueryTokens cumulative prompt tokens looked up at admission, re-admissions after
   *     preemption included (prefix_cache_queries)
   * @param prefixHitTokens cumulative of those served from the cache (prefix_cache_hits)
   * @param preemptions cumulative recompute preemptions (num_preemptions)
   * @param steps cumulative completed steps
   * @param promptTokens cumulative prompt tokens of requests that produced a first token
   * @param generationTokens cumulative generated tokens
   * @param finishedRequests cumulative requests finished with reason "length"
   */
  public record Stats(
      int running,
      int waiting,
      double kvUsage,
      int cachedBlocks,
      long prefixQueryTokens,
      long prefixHitTokens,
      long preemptions,
      long steps,
      long promptTokens,
      long generationTokens,
      long finishedRequests) {}

  /** Engine-side state of one request. */
  private static final class Req {
    final SimRequest r;
    final int[] prompt;
    final long tokenSeed;
    // Live KV, null while waiting. Its tokens are prompt ‖ gen[0 .. seq.length() - prompt.length).
    Sequence seq;
    // Tokens of seq whose KV will be computed once the steps planned so far complete.
    int computed;
    int[] gen = new int[8];
    int genCount;
    int cachedAtFirstAdmission = -1;
    boolean firstTokenSent;
    boolean gone;
    long plannedIn = -1;

    Req(SimRequest r) {
      this.r = r;
      this.prompt = r.promptTokensUnsafe();
      this.tokenSeed = XX3.hashBytes(r.id().getBytes(StandardCharsets.UTF_8));
    }

    /** Prompt plus everything generated so far: what a (re-)admission must hold. */
    int[] admissionTokens() {
      if (genCount == 0) {
        return prompt;
      }
      int[] all = Arrays.copyOf(prompt, prompt.length + genCount);
      System.arraycopy(gen, 0, all, prompt.length, genCount);
      return all;
    }

    void addGenerated(int token) {
      if (genCount == gen.length) {
        gen = Arrays.copyOf(gen, gen.length * 2);
      }
      gen[genCount++] = token;
    }
  }

  /** One sequence's share of a planned step. */
  private record Planned(Req req, Sequence seq, int tokens, boolean decode) {}

  private final EngineConfig config;
  private final BlockManager blocks;
  private final Map<String, Req> byId = new HashMap<>();
  private final ArrayDeque<Req> waiting = new ArrayDeque<>();
  // Admission order: the last one is the preemption victim.
  private final List<Req> running = new ArrayList<>();

  private Step inFlight;
  private List<Planned> inFlightPlan;
  private long planSerial;
  private long nextSeqId;
  private double lastEndMs = Double.NEGATIVE_INFINITY;

  private long stepsRun;
  private long preemptions;
  private long promptTokensTotal;
  private long generationTokensTotal;
  private long finishedRequests;

  /**
   * @param config scheduler limits and costs
   * @param blocks the engine's KV cache, owned by this core from now on
   */
  public EngineCore(EngineConfig config, BlockManager blocks) {
    this.config = Objects.requireNonNull(config, "config");
    this.blocks = Objects.requireNonNull(blocks, "blocks");
  }

  /**
   * True when a request of this shape can ever run: its whole sequence ({@code promptTokens +
   * maxTokens - 1} tokens; the last generated token needs no KV) fits in the cache alone. {@link
   * #submit} rejects the others (vLLM rejects them against {@code max_model_len}).
   */
  public boolean fits(int promptTokens, int maxTokens) {
    long tokens = (long) promptTokens + maxTokens - 1;
    long needed = (tokens + blocks.blockSize() - 1) / blocks.blockSize();
    return promptTokens >= 1 && maxTokens >= 1 && needed <= blocks.numBlocks();
  }

  /**
   * Enqueues a request at the tail of the waiting queue.
   *
   * @throws IllegalArgumentException when the id is already live or the request does not {@link
   *     #fits fit}
   */
  public void submit(SimRequest r) {
    Objects.requireNonNull(r, "r");
    if (byId.containsKey(r.id())) {
      throw new IllegalArgumentException("duplicate live request id " + r.id());
    }
    if (!fits(r.promptLength(), r.maxTokens())) {
      throw new IllegalArgumentException(
          "request "
              + r.id()
              + ": prompt "
              + r.promptLength()
              + " + maxTokens "
              + r.maxTokens()
              + " exceeds the KV cache ("
              + blocks.numBlocks()
              + " blocks of "
              + blocks.blockSize()
              + " tokens)");
    }
    Req q = new Req(r);
    byId.put(r.id(), q);
    waiting.addLast(q);
  }

  /**
   * The client went away: drops the request (releasing its blocks; its computed blocks stay
   * cached). No event is produced for it afterwards, even by a step already in flight.
   *
   * @return true if the request was live (waiting or running)
   */
  public boolean cancel(String requestId) {
    Req q = byId.remove(requestId);
    if (q == null) {
      return false;
    }
    q.gone = true;
    if (q.seq != null) {
      running.remove(q);
      blocks.release(q.seq);
      q.seq = null;
    } else {
      waiting.remove(q);
    }
    return true;
  }

  /**
   * Cancels a request and returns its {@code Finished} event with reason {@code "abort"} (for
   * server-side aborts that must still be reported).
   *
   * @param nowMs abort time in the caller's clock (ms)
   * @return the event, or null if the request was not live
   */
  public EngineEvent.Finished abort(String requestId, double nowMs) {
    Req q = byId.get(requestId);
    if (q == null) {
      return null;
    }
    cancel(requestId);
    return finished(q, "abort", nowMs);
  }

  /**
   * Plans the next step, starting at {@code max(nowMs, previous step's end)}. Admission and decode
   * block allocation (and any eviction or preemption) happen now; KV is computed at {@link
   * #complete}.
   *
   * @param nowMs the caller's clock (ms)
   * @return the step, or null when there is nothing to run
   * @throws IllegalStateException while a planned step is not yet completed
   */
  public Step schedule(double nowMs) {
    if (inFlight != null) {
      throw new IllegalStateException("a step is in flight: complete it first");
    }
    long serial = ++planSerial;
    int budget = config.maxNumBatchedTokens();
    List<Planned> plan = new ArrayList<>();
    boolean preempted = false;

    // 1. Decodes: one token each; the token sampled last step gets its KV slot now.
    for (int i = 0; i < running.size() && budget > 0; i++) {
      Req q = running.get(i);
      if (q.computed < q.seq.length()) {
        continue; // still prefilling
      }
      int token = q.gen[q.genCount - 1];
      boolean appended;
      while (!(appended = blocks.append(q.seq, token))) {
        Req victim = running.get(running.size() - 1);
        preempt(victim);
        preempted = true;
        if (victim == q) {
          break;
        }
      }
      if (!appended) {
        break; // q itself was the last running request
      }
      q.plannedIn = serial;
      plan.add(new Planned(q, q.seq, 1, true));
      budget--;
    }

    // 2. Chunked prefill of admitted requests, in admission order.
    for (int i = 0; i < running.size() && budget > 0; i++) {
      Req q = running.get(i);
      if (q.plannedIn == serial || q.computed >= q.seq.length()) {
        continue;
      }
      int chunk = Math.min(budget, q.seq.length() - q.computed);
      q.plannedIn = serial;
      plan.add(new Planned(q, q.seq, chunk, false));
      budget -= chunk;
    }

    // 3. Admission, FCFS with head-of-line blocking; not right after a preemption (as vLLM), unless
    // the step would otherwise be empty.
    if (!preempted || plan.isEmpty()) {
      while (budget > 0 && running.size() < config.maxNumSeqs() && !waiting.isEmpty()) {
        Req q = waiting.peekFirst();
        Sequence s = blocks.admit(nextSeqId, q.admissionTokens(), q.r.loraName());
        if (s == null) {
          break;
        }
        nextSeqId++;
        waiting.pollFirst();
        q.seq = s;
        q.computed = s.cachedTokens();
        if (q.cachedAtFirstAdmission < 0) {
          q.cachedAtFirstAdmission = s.cachedTokens();
        }
        running.add(q);
        int chunk = Math.min(budget, s.length() - q.computed);
        q.plannedIn = serial;
        plan.add(new Planned(q, s, chunk, false));
        budget -= chunk;
      }
    }

    if (plan.isEmpty()) {
      return null;
    }
    int prefillTokens = 0;
    int decodeSeqs = 0;
    long contextTokens = 0;
    for (Planned p : plan) {
      if (p.decode) {
        decodeSeqs++;
      } else {
        prefillTokens += p.tokens;
      }
      contextTokens += p.req.computed + p.tokens;
    }
    double start = Math.max(nowMs, lastEndMs);
    double duration = config.cost().stepMs(prefillTokens, decodeSeqs, contextTokens);
    for (Planned p : plan) {
      p.req.computed += p.tokens;
    }
    inFlight = new Step(start, duration, prefillTokens, decodeSeqs, plan.size());
    inFlightPlan = plan;
    return inFlight;
  }

  /**
   * Applies the step planned by the last {@link #schedule} at its end time: the planned KV becomes
   * computed (stored blocks are reported to the block manager's listener), a request whose sequence
   * is fully computed samples its next token, and a request reaching {@code maxTokens} finishes and
   * releases its blocks. Cancelled requests are skipped.
   *
   * @return the step's events in batch order; per request {@code FirstToken}, then {@code Token},
   *     then {@code Finished}
   * @throws IllegalStateException when {@code step} is not the step in flight
   */
  public List<EngineEvent> complete(Step step) {
    if (inFlight == null || step != inFlight) {
      throw new IllegalStateException("not the step in flight: " + step);
    }
    double end = step.endMs();
    List<Planned> plan = inFlightPlan;
    inFlight = null;
    inFlightPlan = null;
    lastEndMs = end;
    stepsRun++;
    List<EngineEvent> events = new ArrayList<>();
    for (Planned p : plan) {
      Req q = p.req;
      if (q.gone || q.seq != p.seq) {
        continue;
      }
      blocks.computed(q.seq, q.computed);
      if (q.computed < q.seq.length()) {
        continue; // more prefill chunks to go
      }
      int index = q.genCount;
      int token = q.r.outputToken(index, generatedToken(q.tokenSeed, index));
      q.addGenerated(token);
      generationTokensTotal++;
      if (!q.firstTokenSent) {
        q.firstTokenSent = true;
        promptTokensTotal += q.prompt.length;
        events.add(new EngineEvent.FirstToken(q.r.id(), token, end));
      }
      events.add(new EngineEvent.Token(q.r.id(), token, index, end));
      if (q.genCount >= q.r.maxTokens()) {
        running.remove(q);
        blocks.release(q.seq);
        q.seq = null;
        q.gone = true;
        byId.remove(q.r.id());
        finishedRequests++;
        events.add(finished(q, "length", end));
      }
    }
    return events;
  }

  /**
   * vLLM's {@code /reset_prefix_cache}: drops every cached block (the listener gets {@code
   * allCleared}). Refused while any request holds blocks or a step is in flight.
   *
   * @return true if the cache was reset
   */
  public boolean resetPrefixCache() {
    if (inFlight != null || !running.isEmpty() || blocks.liveSequences() > 0) {
      return false;
    }
    blocks.reset();
    return true;
  }

  /** Requests holding KV blocks (admitted, prefilling or decoding). */
  public int running() {
    return running.size();
  }

  /** Requests queued for admission (preempted ones included). */
  public int waiting() {
    return waiting.size();
  }

  /** The engine's KV cache. */
  public BlockManager blocks() {
    return blocks;
  }

  /** The configuration this core runs with. */
  public EngineConfig config() {
    return config;
  }

  /** Completed steps. */
  public long stepsRun() {
    return stepsRun;
  }

  /** Cumulative recompute preemptions. */
  public long preemptions() {
    return preemptions;
  }

  /** Cumulative prompt tokens of requests that produced their first token. */
  public long promptTokensTotal() {
    return promptTokensTotal;
  }

  /** Cumulative generated tokens. */
  public long generationTokensTotal() {
    return generationTokensTotal;
  }

  /** True while a planned step awaits {@link #complete}. */
  public boolean stepInFlight() {
    return inFlight != null;
  }

  /** A snapshot of every counter, for the engine's /metrics. */
  public Stats stats() {
    return new Stats(
        running.size(),
        waiting.size(),
        blocks.usage(),
        blocks.cachedBlocks(),
        blocks.prefixQueryTokens(),
        blocks.prefixHitTokens(),
        preemptions,
        stepsRun,
        promptTokensTotal,
        generationTokensTotal,
        finishedRequests);
  }

  /**
   * The token the simulator generates at {@code index} for a request: deterministic in (request id,
   * index), in {@code [MIN_GENERATED_TOKEN, MAX_GENERATED_TOKEN)}.
   */
  public static int generatedToken(String requestId, int index) {
    return generatedToken(XX3.hashBytes(requestId.getBytes(StandardCharsets.UTF_8)), index);
  }

  private static int generatedToken(long seed, int index) {
    // SplitMix64 finalizer over the request's seed advanced by the index.
    long z = seed + 0x9E3779B97F4A7C15L * (index + 1L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z ^= z >>> 31;
    int span = MAX_GENERATED_TOKEN - MIN_GENERATED_TOKEN;
    return MIN_GENERATED_TOKEN + (int) Long.remainderUnsigned(z, span);
  }

  private void preempt(Req victim) {
    running.remove(running.size() - 1);
    blocks.release(victim.seq);
    victim.seq = null;
    victim.computed = 0;
    waiting.addFirst(victim);
    preemptions++;
  }

  private static EngineEvent.Finished finished(Req q, String reason, double atMs) {
    return new EngineEvent.Finished(
        q.r.id(), q.prompt.length, Math.max(0, q.cachedAtFirstAdmission), q.genCount, reason, atMs);
  }
}
