/**
 * The Infera operator: turns one {@code InferaDeployment} into engine pools, NATS and routers.
 *
 * <p>Depends on neither the router nor the simulator; it shares only the RouterConfig and
 * InferaDeployment documents (DESIGN.md §7, §8). Built out in issue 7.
 */
package io.infera.operator;
