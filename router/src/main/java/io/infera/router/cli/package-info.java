/**
 * The {@code infera-router} command line: one picocli command per subcommand, thin wrappers over
 * the library packages. Usage errors and bad input exit with code 2 and a one-line message on
 * stderr; no stack trace reaches the user.
 */
package io.infera.router.cli;
