package io.infera.operator.cli;

import io.infera.operator.desired.Images;
import io.infera.operator.render.RenderCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Entry point of {@code infera-operator.jar}. */
@Command(
    name = "infera-operator",
    mixinStandardHelpOptions = true,
    versionProvider = InferaOperator.Version.class,
    description = "Kubernetes operator for InferaDeployment: LLM engine pools, NATS and routers.",
    subcommands = {RunCommand.class, RenderCommand.class, CommandLine.HelpCommand.class})
public final class InferaOperator implements Runnable {

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
    CommandLine cl = new CommandLine(new InferaOperator());
    // Subcommands do not inherit the version provider; without it their --version prints nothing.
    cl.getSubcommands()
        .values()
        .forEach(sub -> sub.getCommandSpec().versionProvider(new Version()));
    cl.setExecutionExceptionHandler(
        (ex, cmd, parseResult) -> {
          // Last resort: a bug must not print a stack trace at the user.
          cmd.getErr().println("infera-operator: internal error: " + ex);
          return 1;
        });
    return cl;
  }

  /**
   * {@code --version} of every command: {@code infera-operator <Maven project version>}, read from
   * the filtered {@code version.properties} (the same from the shaded jar and the test classpath).
   */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"infera-operator " + Images.INFERA_VERSION};
    }
  }
}
