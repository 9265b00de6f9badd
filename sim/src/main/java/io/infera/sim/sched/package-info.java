/**
 * sched: a GPU-free model of vLLM v1's scheduler — continuous batching under a sequence cap and a
 * token budget, chunked prefill, FCFS admission with head-of-line blocking, recompute preemption —
 * over a {@link io.infera.sim.kvcache.BlockManager}, with step latencies from a {@link
 * io.infera.sim.sched.CostModel}.
 *
 * <p>Time is simulated: the caller owns the clock and alternates {@code schedule} and {@code
 * complete}. Everything here is single-threaded, owned by one engine thread.
 */
package io.infera.sim.sched;
