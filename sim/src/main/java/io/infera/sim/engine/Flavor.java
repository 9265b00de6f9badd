package io.infera.sim.engine;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Which engine a simulated server imitates: the KV-event wire shape it publishes. */
public enum Flavor {
  /**
   * vLLM 0.33.0 (the default): msgspec's array batch {@code [ts, events, dp_rank]} of tagged map
   * events {@code {"type": "BlockStored", …}}, defaults omitted, extra keys untagged.
   */
  VLLM("vllm"),
  /** Older vLLM: array-shaped events {@code ["BlockStored", …]} in an array batch. */
  VLLM_ARRAY("vllm-array"),
  /** A map batch {@code {ts, events, data_parallel_rank}} of map events, every key present. */
  VLLM_MAP("vllm-map"),
  /**
   * SGLang 0.5.23: array batch {@code [ts, events, attn_dp_rank]} of tagged map events, one per
   * page, the salt as a top-level {@code cache_salt}.
   */
  SGLANG("sglang");

  private final String cliName;

  Flavor(String cliName) {
    this.cliName = cliName;
  }

  /** The name used on the command line and in logs. */
  public String cliName() {
    return cliName;
  }

  /** The engine family, as the relay's {@code Infera-Engine} header names it. */
  public String engine() {
    return this == SGLANG ? "sglang" : "vllm";
  }

  /**
   * Parses a CLI name ({@code vllm}, {@code vllm-array}, {@code vllm-map}, {@code sglang};
   * case-insensitive, {@code _} accepted for {@code -}).
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static Flavor parse(String name) {
    String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
    for (Flavor f : values()) {
      if (f.cliName.equals(n)) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "unknown flavor '"
            + name
            + "' (expected "
            + Arrays.stream(values()).map(Flavor::cliName).collect(Collectors.joining(", "))
            + ")");
  }

  @Override
  public String toString() {
    return cliName;
  }
}
