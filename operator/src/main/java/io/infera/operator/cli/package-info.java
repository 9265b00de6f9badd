/** cli: the {@code infera-operator} command line (picocli). */
package io.infera.operator.cli;
