package io.infera.router.config;

/**
 * Policy settings: {@code --router-policy}, {@code --kv-overlap-weight}, and the per-role weights
 * {@code --kv-prefill-overlap-weight} / {@code --kv-decode-overlap-weight} that override the global
 * weight for prefill and decode workers.
 *
 * @param prefillOverlapWeight null to use {@code overlapWeight}
 * @param decodeOverlapWeight null to use {@code overlapWeight}
 * @param load the load model's settings ({@code policy.load.*}); null means the defaults
 */
public record PolicyConfig(
    PolicyName name,
    double overlapWeight,
    Double prefillOverlapWeight,
    Double decodeOverlapWeight,
    LoadModel load) {

  public static final double DEFAULT_OVERLAP_WEIGHT = 1.0;

  public PolicyConfig {
    if (name == null) {
      throw new IllegalArgumentException("policy name must be set");
    }
    check("overlapWeight", overlapWeight);
    if (prefillOverlapWeight != null) {
      check("prefillOverlapWeight", prefillOverlapWeight);
    }
    if (decodeOverlapWeight != null) {
      check("decodeOverlapWeight", decodeOverlapWeight);
    }
    load = load == null ? LoadModel.DEFAULTS : load;
  }

  /** A policy with the load model at its defaults. */
  public PolicyConfig(
      PolicyName name,
      double overlapWeight,
      Double prefillOverlapWeight,
      Double decodeOverlapWeight) {
    this(name, overlapWeight, prefillOverlapWeight, decodeOverlapWeight, null);
  }

  /** kv-aware with the default weight. */
  public static PolicyConfig defaults() {
    return new PolicyConfig(PolicyName.KV_AWARE, DEFAULT_OVERLAP_WEIGHT, null, null);
  }

  /** The overlap weight that applies to a worker of {@code role}. */
  public double weightFor(Role role) {
    return switch (role) {
      case PREFILL -> prefillOverlapWeight != null ? prefillOverlapWeight : overlapWeight;
      case DECODE -> decodeOverlapWeight != null ? decodeOverlapWeight : overlapWeight;
      case MIXED -> overlapWeight;
    };
  }

  private static void check(String key, double w) {
    if (!Double.isFinite(w) || w < 0) {
      throw new IllegalArgumentException(key + " must be a finite number >= 0, got " + w);
    }
  }
}
