/**
 * cli: the {@code infera-operator} command line (picocli): {@code run} (the operator, with its
 * probe and metrics server) and {@code render} (the children of a resource, without a cluster).
 * Errors reach the user as one line and an exit code, never as a stack trace.
 */
package io.infera.operator.cli;
