/**
 * status: what the operator observed, folded into {@code InferaDeploymentStatus} by one pure
 * aggregator ({@link io.infera.operator.status.StatusAggregator}).
 *
 * <p>Inputs are plain records (workload replica counts, the routers' own view, the spec outcome);
 * the clock is a parameter. The only I/O here is {@link
 * io.infera.operator.status.RouterStatusClient}, which reads a router's {@code /v1/admin/status}
 * with a short timeout and never throws.
 */
package io.infera.operator.status;
