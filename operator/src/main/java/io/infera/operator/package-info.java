/**
 * The Infera operator: turns one {@code InferaDeployment} into engine pools, NATS and routers.
 *
 * <p>Depends on neither the router nor the simulator; it shares only the RouterConfig and
 * InferaDeployment documents (docs/contracts.md, "RouterConfig" and "InferaDeployment").
 */
package io.infera.operator;
