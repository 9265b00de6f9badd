package io.infera.router.config;

/**
 * Policy settings: {@code --router-policy}, {@code --kv-overlap-weight}, and the per-role weights
 * {@code --kv-prefill-overlap-weight} / {@code --kv-decode-overlap-weight} that override the global
 * weight for prefill and decode workers; {@code policy.overlapWeightMode} and {@code
 * policy.tuner.*} for the self-tuning weight.
 *
 * @param prefillOverlapWeight null to use {@code overlapWeight}
 * @param decodeOverlapWeight null to use {@code overlapWeight}
 * @param weightMode {@code FIXED}: the weights above hold; {@code AUTO}: each pool's weight is
 *     tuned online within {@code tuner}'s bounds (the weights above are then unused)
 * @param load the load model's settings ({@code policy.load.*}); null means the defaults
 */
public record PolicyConfig(
    PolicyName name,
    double overlapWeight,
    Double prefillOverlapWeight,
    Double decodeOverlapWeight,
    OverlapWeightMode weightMode,
    TunerConfig tuner,
    LoadModel load) {

  public static final double DEFAULT_OVERLAP_WEIGHT = 1.0;

  public PolicyConfig {
    if (name == null) {
      throw new IllegalArgumentException("policy name must be set");
    }
    if (weightMode == null) {
      throw new IllegalArgumentException("overlapWeightMode must be set");
    }
    if (tuner == null) {
      tuner = TunerConfig.defaults();
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

  /** Fixed weights, as given (the form callers that pick a weight use), default load model. */
  public PolicyConfig(
      PolicyName name,
      double overlapWeight,
      Double prefillOverlapWeight,
      Double decodeOverlapWeight) {
    this(name, overlapWeight, prefillOverlapWeight, decodeOverlapWeight, (LoadModel) null);
  }

  /** Fixed weights with the given load model ({@code null}: the defaults). */
  public PolicyConfig(
      PolicyName name,
      double overlapWeight,
      Double prefillOverlapWeight,
      Double decodeOverlapWeight,
      LoadModel load) {
    this(
        name,
        overlapWeight,
        prefillOverlapWeight,
        decodeOverlapWeight,
        OverlapWeightMode.FIXED,
        TunerConfig.defaults(),
        load);
  }

  /** The given weight mode and tuner, default load model. */
  public PolicyConfig(
      PolicyName name,
      double overlapWeight,
      Double prefillOverlapWeight,
      Double decodeOverlapWeight,
      OverlapWeightMode weightMode,
      TunerConfig tuner) {
    this(name, overlapWeight, prefillOverlapWeight, decodeOverlapWeight, weightMode, tuner, null);
  }

  /** kv-aware with the fixed default weight 1.0 (deterministic picks, for tests and tools). */
  public static PolicyConfig defaults() {
    return new PolicyConfig(PolicyName.KV_AWARE, DEFAULT_OVERLAP_WEIGHT, null, null);
  }

  /** {@code name} with the router's default: the tuned weight with the default tuner bounds. */
  public static PolicyConfig tuned(PolicyName name) {
    return new PolicyConfig(
        name, DEFAULT_OVERLAP_WEIGHT, null, null, OverlapWeightMode.AUTO, TunerConfig.defaults());
  }

  /** Whether the overlap weight is tuned online (kv-aware and approx-prefix only). */
  public boolean tunes() {
    return weightMode == OverlapWeightMode.AUTO
        && (name == PolicyName.KV_AWARE || name == PolicyName.APPROX_PREFIX);
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
