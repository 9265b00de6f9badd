package io.infera.sim.engine;

import java.util.Locale;

/** Which engine a simulated server imitates: the KV-event wire shape it publishes. */
public enum Flavor {
  /** vLLM with array-shaped events {@code ["BlockStored", …]} in an array batch. */
  VLLM("vllm"),
  /** vLLM 2026+: map-shaped events {@code {"type": "BlockStored", …}} in a map batch. */
  VLLM_MAP("vllm-map"),
  /** SGLang: array events up to {@code lora_id}, one event per page, no medium. */
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
   * Parses a CLI name ({@code vllm}, {@code vllm-map}, {@code sglang}; case-insensitive, {@code _}
   * accepted for {@code -}).
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
        "unknown flavor '" + name + "' (expected vllm, vllm-map or sglang)");
  }

  @Override
  public String toString() {
    return cliName;
  }
}
