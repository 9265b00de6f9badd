package io.infera.router.events.nats;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code nats} transport as a whole.
 *
 * @param processedSeq the last stream sequence processed
 * @param targetSeq the stream's last sequence when the router started: warm once processed
 * @param heldMessages events of undiscovered workers held now
 * @param notWarmReason why {@link NatsTransport#warm()} is false, null when it is true
 * @param threadCrashes times the consumer thread crashed (and was restarted)
 * @param threadProblem why the consumer thread delivers nothing now, or null
 */
public record NatsStatus(
    String url,
    String stream,
    boolean connected,
    boolean caughtUp,
    boolean warm,
    long processedSeq,
    long streamFirstSeq,
    long streamLastSeq,
    long targetSeq,
    int heldMessages,
    String notWarmReason,
    long threadCrashes,
    String threadProblem) {

  /** The {@code nats} object of the admin status: this, then the counters, in its order. */
  Map<String, Object> fields(NatsCounters c) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("url", url);
    out.put("stream", stream);
    out.put("connected", connected);
    out.put("caught_up", caughtUp);
    out.put("warm", warm);
    out.put("not_warm_reason", notWarmReason);
    out.put("processed_stream_seq", processedSeq);
    out.put("stream_first_seq", streamFirstSeq);
    out.put("stream_last_seq", streamLastSeq);
    out.put("start_target_seq", targetSeq);
    out.put("lag_messages", c.lagMessages());
    out.put("held_messages", heldMessages);
    out.put("messages", c.messagesReceived());
    out.put("bytes", c.bytesReceived());
    out.put("garbage_subjects", c.garbageSubjects());
    out.put("foreign_pool", c.foreignPool());
    out.put("bad_headers", c.badHeaders());
    out.put("duplicates", c.duplicates());
    out.put("covered_skipped", c.coveredSkipped());
    out.put("resync_markers", c.resyncMarkers());
    out.put("resyncs", c.resyncs());
    out.put("snapshots_seeded", c.snapshotsSeeded());
    out.put("snapshots_bad", c.badSnapshots());
    out.put("snapshots_stale", c.staleSnapshots());
    out.put("reconnects", c.reconnects());
    out.put("consumer_restarts", c.consumerRestarts());
    out.put("lost_messages", c.lostMessages());
    out.put("undiscovered_dropped", c.undiscoveredDropped());
    out.put("errors", c.errors());
    out.put("thread_crashes", threadCrashes);
    out.put("thread_problem", threadProblem);
    return out;
  }
}
