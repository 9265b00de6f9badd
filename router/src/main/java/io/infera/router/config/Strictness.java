package io.infera.router.config;

/**
 * What the loader does with a key it does not know (docs/contracts.md, "Version skew"): {@code
 * LENIENT} (the default of {@code serve}) ignores it and reports it in {@link IgnoredKeys}, unless
 * the document lists it under {@code mustUnderstand}; {@code STRICT} ({@code --strict-config})
 * refuses it, naming the key.
 */
public enum Strictness {
  LENIENT,
  STRICT
}
