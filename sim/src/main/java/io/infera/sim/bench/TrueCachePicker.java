package io.infera.sim.bench;

/**
 * An arm that routes from every engine's true cached prefix instead of the router's index (the
 * {@link Oracle}, the {@link HitMaxPicker}); both drivers call it the same way.
 */
public interface TrueCachePicker {

  /**
   * Picks an engine and books the request on it; release the booking when the request ends.
   *
   * @param hashes the request's router block hashes
   * @param cachedBlocks per engine position, how many leading blocks of the prompt its cache holds
   *     (values above {@code hashes.length} count as {@code hashes.length})
   * @throws IllegalArgumentException when {@code cachedBlocks} does not have one entry per engine
   */
  Oracle.Pick pick(long[] hashes, int[] cachedBlocks);

  /**
   * The picker of {@code arm} on {@code fleet} with its load on {@code nanoTime}, or null when the
   * arm routes through the router.
   */
  static TrueCachePicker of(Arm arm, FleetSpec fleet, java.util.function.LongSupplier nanoTime) {
    if (arm.isHitMax()) {
      return new HitMaxPicker(fleet, nanoTime);
    }
    return arm.isOracle() ? new Oracle(fleet, nanoTime) : null;
  }
}
