/**
 * Index accuracy as a service-level indicator: what the engines report they found cached ({@code
 * usage.prompt_tokens_details.cached_tokens}), read from their answers within fixed budgets,
 * compared with what the router predicted, and the {@code IndexAccurate} condition the comparison
 * supports. Plain Java and Micrometer; the HTTP layer feeds it.
 */
package io.infera.router.accuracy;
