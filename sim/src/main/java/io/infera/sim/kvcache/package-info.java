/**
 * kvcache: a GPU-free model of vLLM v1's paged KV cache with prefix caching — fixed-size blocks,
 * per-block reference counts, a least-recently-used free queue that evicts leaves before their
 * parents, and {@code BlockStored}/{@code BlockRemoved}/{@code AllBlocksCleared} events carrying
 * the engine's own (seeded, opaque) block hashes.
 *
 * <p>Invariants: the set of cached blocks is exactly what the listener has been told (stored minus
 * removed since the last clear); a referenced block is never evicted; a cached block's parent is
 * cached too. Everything here is single-threaded, owned by one engine thread.
 */
package io.infera.sim.kvcache;
