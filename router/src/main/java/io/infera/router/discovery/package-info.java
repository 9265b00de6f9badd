/**
 * Which workers exist and whether they take requests: {@code static} (the config's list) and {@code
 * kubernetes} (EndpointSlices of each pool's headless Service). A discovery emits full snapshots;
 * the fleet diffs them. Health checking and the circuit breaker decide routability.
 */
package io.infera.router.discovery;
