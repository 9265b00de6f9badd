/**
 * status: what the operator observed, folded into {@code InferaDeploymentStatus} by one pure
 * aggregator ({@link io.infera.operator.status.StatusAggregator}).
 *
 * <p>{@link io.infera.operator.status.ChildObserver} maps the secondary resources the reconciler
 * hands over to plain records (workload replica counts); with the routers' own view and the spec
 * outcome they make an {@link io.infera.operator.status.Observation}. Nothing here depends on JOSDK
 * or the reconciler; the clock is a parameter. The only I/O here is {@link
 * io.infera.operator.status.RouterStatusClient}, which reads a router's {@code /v1/admin/status}
 * with a short timeout and never throws.
 */
package io.infera.operator.status;
