package io.infera.sim.bench;

import io.infera.router.config.PolicyName;
import java.util.ArrayList;
import java.util.List;

/**
 * One side of the comparison: a production router policy, or the oracle (picks by every engine's
 * true device cache at decision time, the upper bound of cache-aware routing).
 */
public record Arm(String name, PolicyName policy) {

  public static final String ORACLE = "oracle";

  public static Arm oracle() {
    return new Arm(ORACLE, PolicyName.KV_AWARE);
  }

  public static Arm policy(PolicyName p) {
    return new Arm(p.wireName(), p);
  }

  public boolean isOracle() {
    return ORACLE.equals(name);
  }

  /** Parses {@code kv-aware,round-robin,oracle,…}; {@code all} = every policy plus the oracle. */
  public static List<Arm> parse(String csv) {
    List<Arm> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      String name = s.strip();
      if (name.isEmpty()) {
        continue;
      }
      if (name.equals("all")) {
        for (PolicyName p : PolicyName.values()) {
          out.add(policy(p));
        }
        out.add(oracle());
      } else if (name.equals(ORACLE)) {
        out.add(oracle());
      } else {
        out.add(policy(PolicyName.parse(name)));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no policies given");
    }
    return out;
  }
}
