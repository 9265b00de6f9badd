/**
 * desired: pure builders from one {@code InferaDeployment} to the child objects the operator owns.
 *
 * <p>No client, environment or clock: the same input always gives the same objects, in the same
 * order, so the reconciler's dependents and {@code infera-operator render} share one source of
 * truth. Names and labels ({@link io.infera.operator.desired.Names}, {@link
 * io.infera.operator.desired.Labels}) are a contract with users, the router and dashboards.
 */
package io.infera.operator.desired;
