package io.infera.router.events.zmq;

import java.util.List;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;

/**
 * The {@code zmq} transport's use of replay sockets: fills a gap (or catches up after a first
 * message or an engine restart) before the message that revealed it, and probes long-silent sources
 * for what their SUB socket may have missed. Every request goes through one {@link ReplayClient}.
 * Poller thread only.
 */
final class Replays {

  // The transport's log lines, under its name.
  private static final Logger log = LoggerFactory.getLogger(ZmqTransport.class);

  /** Why batches are asked for again; only a gap or a restart means they were lost. */
  enum Reason {
    CATCH_UP,
    GAP,
    RESTART;

    String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Hands one replayed batch to the sink. */
  interface Deliver {
    void replayed(ZmqSource s, List<byte[]> frames);
  }

  /**
   * What one replay request brought back.
   *
   * @param delivered batches passed to the sink
   * @param outcome how the request ended
   * @param lastSeq the last batch delivered (or the one before the first wanted)
   * @param seen batches answered at or after the requested start, delivered or not
   */
  record Result(int delivered, ReplayClient.Outcome outcome, long lastSeq, int seen) {

    /** Whether the answer was cut short: no end marker in time, or a malformed message. */
    boolean incomplete() {
      return outcome != ReplayClient.Outcome.COMPLETE;
    }
  }

  private final ZmqSettings settings;
  private final ZmqCounters counters;
  private final ReplayClient client;
  private final Deliver deliver;

  Replays(ZmqSettings settings, ZmqCounters counters, BooleanSupplier running, Deliver deliver) {
    this.settings = settings;
    this.counters = counters;
    this.client =
        new ReplayClient(
            settings.replayTimeout(),
            settings.reconnectInterval(),
            settings.handshakeInterval(),
            settings.pollInterval(),
            running);
    this.deliver = deliver;
  }

  /** Replays sequences {@code from .. to-1} of {@code s} (the caller then delivers {@code to}). */
  void fill(ZContext ctx, ZmqSource s, long from, long to, byte[] topic, Reason reason) {
    long wanted = to - from;
    boolean loss = reason != Reason.CATCH_UP;
    String replayEndpoint = s.key.replayEndpoint();
    long now = System.nanoTime();
    if (replayEndpoint == null || now - s.replayAllowedAtNanos < 0) {
      if (loss) {
        counters.missedMessages.addAndGet(wanted);
        log.warn(
            "zmq source missed messages, no replay worker={} rank={} reason={} from_seq={}"
                + " to_seq={} missed={} replay_endpoint={}",
            s.key.worker(),
            s.key.rank(),
            reason.wireName(),
            from,
            to - 1,
            wanted,
            replayEndpoint == null ? "none" : "backing_off");
      }
      return;
    }
    counters.replaysRequested.incrementAndGet();
    Result r = replay(ctx, s, from, from, to, topic);
    long missing = wanted - r.delivered();
    backOffUnlessComplete(s, r);
    if (loss && missing > 0) {
      counters.missedMessages.addAndGet(missing);
    }
    if (missing > 0 && (loss || r.incomplete())) {
      log.warn(
          "zmq source replay incomplete worker={} rank={} reason={} from_seq={} to_seq={}"
              + " replayed={} missed={} outcome={} replay_endpoint={}",
          s.key.worker(),
          s.key.rank(),
          reason.wireName(),
          from,
          to - 1,
          r.delivered(),
          missing,
          r.outcome().name().toLowerCase(Locale.ROOT),
          replayEndpoint);
    } else {
      log.info(
          "zmq source replayed worker={} rank={} reason={} from_seq={} to_seq={} replayed={}",
          s.key.worker(),
          s.key.rank(),
          reason.wireName(),
          from,
          to - 1,
          r.delivered());
    }
  }

  /**
   * Asks each long-silent source's replay socket for what follows its last sequence L, starting at
   * L itself: an answer without L or anything after it means the engine restarted, and its batches
   * from 0 are fetched (the sink sees a sequence going down, as after a live restart).
   */
  void probeIdle(ZContext ctx, ZmqSource[] polled, BooleanSupplier running) {
    if (settings.idleProbe().isZero()) {
      return;
    }
    long now = System.nanoTime();
    long idle = settings.idleProbe().toNanos();
    for (int i = 0; i < polled.length && running.getAsBoolean(); i++) {
      ZmqSource s = polled[i];
      if (s.key.replayEndpoint() == null
          || now - s.lastActivityNanos < idle
          || now - s.connectedAtNanos < idle
          || now - s.replayAllowedAtNanos < 0) {
        continue;
      }
      probe(ctx, s);
    }
  }

  private void probe(ZContext ctx, ZmqSource s) {
    s.lastActivityNanos = System.nanoTime();
    counters.idleProbes.incrementAndGet();
    long last = s.lastSeq;
    long from = SequenceCheck.probeDeliverFrom(last);
    Result r = replay(ctx, s, SequenceCheck.probeRequestFrom(last), from, Long.MAX_VALUE, s.topic);
    boolean restarted = SequenceCheck.probeShowsRestart(last, r.incomplete(), r.seen());
    if (restarted) {
      counters.engineRestarts.incrementAndGet();
      from = 0;
      r = replay(ctx, s, 0, 0, Long.MAX_VALUE, s.topic);
      log.info(
          "zmq source idle probe: the engine no longer has seq {}, it restarted worker={}"
              + " rank={} replayed={}",
          last,
          s.key.worker(),
          s.key.rank(),
          r.delivered());
      s.lastSeq = SequenceCheck.UNKNOWN;
    }
    backOffUnlessComplete(s, r);
    if (r.delivered() > 0) {
      s.received = true;
      s.probedFrom = from;
      s.probedThrough = r.lastSeq();
      s.lastSeq = r.lastSeq();
      if (!restarted) {
        log.info(
            "zmq source idle probe found batches the subscription missed worker={} rank={}"
                + " from_seq={} to_seq={} replayed={}",
            s.key.worker(),
            s.key.rank(),
            from,
            r.lastSeq(),
            r.delivered());
      }
    }
  }

  /**
   * A replay socket that timed out or answered something malformed is left alone for a while: the
   * next request would most likely fare the same.
   */
  private void backOffUnlessComplete(ZmqSource s, Result r) {
    switch (r.outcome()) {
      case COMPLETE -> {
        return;
      }
      case TIMED_OUT -> counters.replayTimeouts.incrementAndGet();
      case MALFORMED -> {} // counted when it came
    }
    s.replayAllowedAtNanos = System.nanoTime() + settings.replayBackoff().toNanos();
  }

  /**
   * Counted each time; logged once per source (a socket that speaks another layout always will).
   */
  private void malformedAnswer(ZmqSource s, ReplayAnswer.Malformed m) {
    counters.replayMalformed.incrementAndGet();
    if (!s.replayMalformedLogged) {
      s.replayMalformedLogged = true;
      log.warn(
          "zmq replay answer malformed, request abandoned (logged once per source, counted in"
              + " infera_zmq_replay_malformed_total) worker={} rank={} problem={} frames={}"
              + " replay_endpoint={}",
          s.key.worker(),
          s.key.rank(),
          m.problem().wireName(),
          m.frames(),
          s.key.replayEndpoint());
    } else {
      log.debug(
          "zmq replay answer malformed worker={} rank={} problem={} frames={}",
          s.key.worker(),
          s.key.rank(),
          m.problem().wireName(),
          m.frames());
    }
  }

  /**
   * Asks for everything from {@code from} and delivers, in order, the batches from {@code
   * deliverFrom} and before {@code to} (later ones are already queued on the SUB socket).
   */
  private Result replay(ZContext ctx, ZmqSource s, long from, long deliverFrom, long to, byte[] t) {
    int[] delivered = {0};
    int[] seen = {0};
    long[] lastReplayed = {deliverFrom - 1};
    ReplayClient.Outcome outcome =
        client.request(
            ctx,
            s.key.replayEndpoint(),
            from,
            new ReplayClient.Answers() {
              @Override
              public boolean batch(byte[] topic, long seq, byte[] seqFrame, byte[] payload) {
                if (seq >= from) {
                  seen[0]++;
                }
                if (seq > lastReplayed[0] && seq < to) {
                  lastReplayed[0] = seq;
                  delivered[0]++;
                  counters.replayMessages.incrementAndGet();
                  s.messages++;
                  // The answer's own topic when its layout has one, else the live messages'.
                  deliver.replayed(s, List.of(topic == null ? t : topic, seqFrame, payload));
                }
                // Answers come in order: once at to - 1, the rest is on the SUB socket already.
                return seq < to - 1;
              }

              @Override
              public void malformed(ReplayAnswer.Malformed m) {
                malformedAnswer(s, m);
              }
            });
    return new Result(delivered[0], outcome, lastReplayed[0], seen[0]);
  }
}
