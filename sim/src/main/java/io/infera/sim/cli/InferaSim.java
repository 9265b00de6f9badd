package io.infera.sim.cli;

import io.infera.sim.engine.PortInUseException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Entry point of {@code infera-sim.jar}. */
@Command(
    name = "infera-sim",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = "GPU-free simulated vLLM/SGLang engines, the demo and the routing benchmark.",
    subcommands = {
      DemoCommand.class,
      BenchCommand.class,
      ScaleCommand.class,
      PdDemandCommand.class,
      EngineCommand.class,
      CommandLine.HelpCommand.class
    })
public final class InferaSim implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(commandLine().execute(args));
  }

  /** The configured command line (tests call {@code execute} on it). */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new InferaSim());
    cl.setExecutionExceptionHandler(
        (ex, cmd, parseResult) -> {
          PortInUseException taken = portInUse(ex);
          if (taken != null) {
            // A usage problem, not a crash: name the port and what it was for, as a flag error.
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + taken.getMessage());
            return 2;
          }
          cmd.getErr()
              .println(
                  "infera-sim: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()));
          return 1;
        });
    return cl;
  }

  /** The {@link PortInUseException} in {@code t}'s cause chain, or null. */
  private static PortInUseException portInUse(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof PortInUseException p) {
        return p;
      }
    }
    return null;
  }
}
