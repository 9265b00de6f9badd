/**
 * reconciler: the one JOSDK reconciler of InferaDeployment. Validate and build the desired fleet
 * (pure, {@code desired}), apply it through the workflow of dependents ({@code dependent}) only
 * when the spec is valid, hand the secondary resources to {@code status} (which observes them and
 * aggregates the status), then write the status only when it changed. JOSDK glue only; never writes
 * {@code spec}.
 */
package io.infera.operator.reconciler;
