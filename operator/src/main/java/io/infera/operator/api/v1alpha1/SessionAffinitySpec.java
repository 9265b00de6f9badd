package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;

/**
 * Session affinity (RouterConfig {@code policy.sessionAffinity.*}; docs/routing.md, "Session
 * affinity"). Every field unset leaves its key out: the router's default applies.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SessionAffinitySpec {

  @JsonPropertyDescription(
      "off, prefill (keep a session's mixed or prefill worker) or both (also its decode worker and"
          + " data-parallel rank); RouterConfig policy.sessionAffinity.mode. Default: off. Quote"
          + " \"off\" in YAML (a bare off is a boolean).")
  private SessionAffinityMode mode;

  @Pattern(Rules.SESSION_HEADER_PATTERN)
  @JsonPropertyDescription(
      "The request header holding a session id (an HTTP header name, at most 128 characters);"
          + " present, it wins over the body's prompt_cache_key. Empty turns the header source"
          + " off. Default: x-session-id.")
  private String header;

  @Min(1)
  @Max(Rules.MAX_SESSION_AFFINITY_SESSIONS)
  @JsonPropertyDescription(
      "Bindings one router replica keeps, the least recently used dropped first. Default:"
          + " 100000.")
  private Integer maxSessions;

  @Min(Rules.MIN_SESSION_AFFINITY_TTL_MS)
  @Max(Rules.MAX_SESSION_AFFINITY_TTL_MS)
  @JsonPropertyDescription(
      "Milliseconds after which an unused binding is gone (1000 to 604800000, 7 days). Default:"
          + " 1800000 (30 min).")
  private Long ttlMs;

  @Min(1)
  @Max(Rules.MAX_SESSION_AFFINITY_KEY_BYTES)
  @JsonPropertyDescription(
      "A longer session key (UTF-8 bytes) is not used: the request is routed as without one."
          + " Default: 256.")
  private Integer maxKeyBytes;

  public SessionAffinityMode getMode() {
    return mode;
  }

  public void setMode(SessionAffinityMode mode) {
    this.mode = mode;
  }

  public String getHeader() {
    return header;
  }

  public void setHeader(String header) {
    this.header = header;
  }

  public Integer getMaxSessions() {
    return maxSessions;
  }

  public void setMaxSessions(Integer maxSessions) {
    this.maxSessions = maxSessions;
  }

  public Long getTtlMs() {
    return ttlMs;
  }

  public void setTtlMs(Long ttlMs) {
    this.ttlMs = ttlMs;
  }

  public Integer getMaxKeyBytes() {
    return maxKeyBytes;
  }

  public void setMaxKeyBytes(Integer maxKeyBytes) {
    this.maxKeyBytes = maxKeyBytes;
  }
}
