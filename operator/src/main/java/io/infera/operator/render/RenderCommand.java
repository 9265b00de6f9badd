package io.infera.operator.render;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code infera-operator render}: the children of an InferaDeployment, without a cluster. */
@Command(
    name = "render",
    mixinStandardHelpOptions = true,
    description = {
      "Prints every object the operator would create for an InferaDeployment, in a fixed order"
          + " (kind, then name), without a cluster: for GitOps diffs, reviews and dry runs.",
      "For kubectl apply --dry-run=server, render the resource as stored (kubectl get idep NAME"
          + " -o yaml | infera-operator render -f -): the API server refuses owner references"
          + " without the uid a file that never was on a cluster lacks.",
      "Exit codes: 0 rendered; 2 invalid resource (YAML error, unknown field, validation failure,"
          + " contradicting pool args) or unreadable file, with the reason on stderr."
    })
public final class RenderCommand implements Callable<Integer> {

  /** Exit code of an invalid or unreadable resource. */
  public static final int INVALID = 2;

  @Spec CommandSpec spec;

  @Option(
      names = {"-f", "--file"},
      required = true,
      paramLabel = "FILE",
      description = "The InferaDeployment YAML (or JSON); - reads standard input.")
  String file;

  @Option(
      names = {"-o", "--output"},
      defaultValue = "yaml",
      paramLabel = "FORMAT",
      converter = FormatConverter.class,
      description = "yaml (multi-document, default) or json (a v1 List).")
  Renderer.Format format;

  /** Parses {@code yaml} / {@code json}. */
  static final class FormatConverter implements ITypeConverter<Renderer.Format> {
    @Override
    public Renderer.Format convert(String value) {
      try {
        return Renderer.Format.valueOf(value.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException("expected yaml or json, got '" + value + "'");
      }
    }
  }

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    String text;
    String source = file.equals("-") ? "<stdin>" : file;
    try {
      text =
          file.equals("-")
              ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
              : Files.readString(Path.of(file), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      err.println("infera-operator render: " + source + ": no such file");
      return INVALID;
    } catch (IOException | RuntimeException e) {
      err.println("infera-operator render: " + source + ": cannot read: " + e.getMessage());
      return INVALID;
    }
    Renderer.Result result = Renderer.render(text, source, format);
    if (result instanceof Renderer.Result.Rejected r) {
      err.println("infera-operator render: " + r.message());
      return INVALID;
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(((Renderer.Result.Rendered) result).text());
    out.flush();
    return 0;
  }
}
