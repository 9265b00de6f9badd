package io.infera.router.runtime;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The event plane's condition as the router sees it: what its routing rests on.
 *
 * @param reason CamelCase ({@code Live}, {@code NatsUnreachable}, {@code StreamUnreadable}, {@code
 *     CatchingUp}, {@code IndexWriterDead}, {@code TransportCrashed}, {@code Loading})
 * @param message for people, or null
 * @param forSeconds how long the outage has lasted, or null
 */
public record EventsCondition(Status status, String reason, String message, Long forSeconds) {

  /** What routing rests on. */
  public enum Status {
    /** The index is loaded and follows the events. */
    LIVE,
    /** The index is loading (not ready yet, unless the router routes by load meanwhile). */
    LOADING,
    /** The index was loaded, the events stopped arriving: it is as of the outage. */
    STALE,
    /** Ready without an index: every pick is by load (or the approx-prefix history). */
    ROUTING_BY_LOAD,
    /** The writer or the transport thread failed (not ready). */
    FAILED;

    /** Lower-case wire name ({@code routing_by_load}). */
    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** The {@code events_condition} object of {@code GET /v1/admin/status}. */
  public Map<String, Object> fields() {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("status", status.wireName());
    out.put("reason", reason);
    out.put("message", message);
    out.put("for_seconds", forSeconds);
    return out;
  }
}
