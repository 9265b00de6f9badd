/**
 * reconciler: the one JOSDK reconciler of InferaDeployment. Validate and build the desired fleet
 * (pure, {@code desired}), apply it through the workflow of dependents ({@code dependent}) only
 * when the spec is valid, observe, then write the status through the aggregator ({@code status})
 * only when it changed. Never writes {@code spec}.
 */
package io.infera.operator.reconciler;
