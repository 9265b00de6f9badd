package io.infera.router.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Entry point of {@code infera-router.jar}. */
@Command(
    name = "infera-router",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = "KV-cache-aware router for LLM inference: tools and servers.",
    subcommands = {
      HashCommand.class,
      EventsCommand.class,
      TokenizeCommand.class,
      FetchTokenizerCommand.class,
      ServeCommand.class,
      RelayCommand.class,
      CommandLine.HelpCommand.class
    })
public final class InferaRouter implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The configured command line (tests call {@code execute} on it). */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new InferaRouter());
    cl.setExecutionExceptionHandler(
        (ex, cmd, parseResult) -> {
          // Last resort: a bug must not print a stack trace at the user.
          cmd.getErr().println("infera-router: internal error: " + ex);
          return 1;
        });
    return cl;
  }
}
