/**
 * Simulated vLLM/SGLang engines, the load generator, the demo and the routing benchmarks.
 *
 * <p>Reuses the router's tokenizer and KV-event model; built out in issue 5.
 */
package io.infera.sim;
