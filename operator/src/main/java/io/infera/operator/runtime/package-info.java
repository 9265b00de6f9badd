/**
 * runtime: assembles the running operator from typed settings — the JOSDK {@code Operator} with the
 * reconciler, server-side apply on or off, leader election, Micrometer metrics — and serves {@code
 * /healthz}, {@code /readyz} and {@code /metrics}. Used by {@code infera-operator run}, the ITs and
 * the bench, so all three run the same wiring.
 */
package io.infera.operator.runtime;
