package io.infera.router.events;

import io.infera.router.kv.SourceId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a transport says about itself for {@code /ready} and {@code GET /v1/admin/status}: its name,
 * whether it is warm and why not, its own fields and, for a transport that tracks its sources'
 * health, per-source fields. Maps keep their key order (the JSON's) and may hold null values; the
 * admin layer renders them as they are.
 *
 * @param notReadyReason why the transport is not warm, or null (warm, or nothing more to say)
 * @param fields the transport's own status fields, shown under its name; empty when it has none
 * @param sources per-source status, or null when the transport reports none
 */
public record TransportStatus(
    String name, boolean warm, String notReadyReason, Map<String, Object> fields, Sources sources) {

  public TransportStatus {
    Objects.requireNonNull(name, "name");
    fields = ordered(fields);
  }

  /** A transport with nothing to report beyond its name and warmth. */
  public static TransportStatus of(String name, boolean warm) {
    return new TransportStatus(name, warm, null, Map.of(), null);
  }

  /**
   * One source as the transport sees it.
   *
   * @param degraded whether the transport knows the source's view may be incomplete
   * @param degradedReason why, or null
   * @param fields the source's other fields, in order
   */
  public record Source(boolean degraded, String degradedReason, Map<String, Object> fields) {
    public Source {
      fields = ordered(fields);
    }
  }

  /**
   * The sources of a transport that tracks their health.
   *
   * @param known the sources it knows, in display order
   * @param unseen the fields of a source it does not know (yet): the same keys as a known one's
   */
  public record Sources(Map<SourceId, Source> known, Map<String, Object> unseen) {
    public Sources {
      known = Collections.unmodifiableMap(new LinkedHashMap<>(known));
      unseen = ordered(unseen);
    }

    /**
     * The fields to show for a source: {@code health} ({@code healthy} or {@code degraded}) and
     * {@code degraded_reason} ({@code engine_gap} when only the index found it degraded, by an
     * engine sequence that jumped), then the source's own fields.
     *
     * @param source the transport's view of it, or null when it has none
     * @param indexDegraded whether the index marks the source degraded
     */
    public Map<String, Object> render(Source source, boolean indexDegraded) {
      Map<String, Object> out = new LinkedHashMap<>();
      boolean degraded = indexDegraded || (source != null && source.degraded());
      out.put("health", degraded ? "degraded" : "healthy");
      out.put(
          "degraded_reason",
          source != null && source.degradedReason() != null
              ? source.degradedReason()
              : indexDegraded ? "engine_gap" : null);
      out.putAll(source == null ? unseen : source.fields());
      return out;
    }
  }

  private static Map<String, Object> ordered(Map<String, Object> m) {
    return Collections.unmodifiableMap(new LinkedHashMap<>(m));
  }
}
