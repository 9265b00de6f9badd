/**
 * The simulator: engines that behave like vLLM/SGLang without a GPU ({@code kvcache}, {@code
 * sched}, {@code engine}), workloads ({@code workload}), the routing-quality benchmark ({@code
 * bench}) and the demo ({@code demo}). Reuses the router's tokenizer and KV-event model.
 */
package io.infera.sim;
