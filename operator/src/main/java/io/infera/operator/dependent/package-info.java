/**
 * dependent: thin JOSDK dependent resources, one per kind of child. Each {@code desired()} picks
 * its object from the {@link io.infera.operator.desired.Fleet} the reconciler built once for this
 * reconciliation ({@link io.infera.operator.dependent.DesiredChildren}); no builder logic lives
 * here.
 *
 * <p>Deployments and Services share one informer each (router, NATS and pools); the per-pool bulk
 * dependents select their objects by the worker component label so that they never touch the
 * router's. Every informer watches only objects labelled {@code managed-by: infera-operator}.
 */
package io.infera.operator.dependent;
