package io.infera.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A vLLM NixlConnector {@code kv_role} (vLLM's {@code KVTransferConfig}): prefill pools produce KV,
 * decode pools consume it; {@code kv_both} does either and is deprecated for NixlConnector.
 */
public enum KvTransferRole {
  @JsonProperty("kv_producer")
  KV_PRODUCER("kv_producer"),
  @JsonProperty("kv_consumer")
  KV_CONSUMER("kv_consumer"),
  @JsonProperty("kv_both")
  KV_BOTH("kv_both");

  private final String value;

  KvTransferRole(String value) {
    this.value = value;
  }

  /** The name used in the resource and in {@code --kv-transfer-config}. */
  public String value() {
    return value;
  }

  /** The role vLLM documents for a pool of {@code role}, or null for a mixed pool. */
  public static KvTransferRole forPool(PoolRole role) {
    return switch (role) {
      case PREFILL -> KV_PRODUCER;
      case DECODE -> KV_CONSUMER;
      case MIXED -> null;
    };
  }
}
