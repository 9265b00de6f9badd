package io.infera.router.cli;

import io.infera.router.hub.HubFetchException;
import io.infera.router.hub.TokenizerFetcher;
import io.infera.router.tokenize.HubNames;
import io.infera.router.tokenize.TokenizerSource;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code infera-router fetch-tokenizer}: a model's tokenizer files into a hub cache. */
@Command(
    name = "fetch-tokenizer",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Download a model's tokenizer.json (+ tokenizer_config.json, chat_template.jinja when"
          + " present) from the Hugging Face hub into a hub cache, in the layout the router"
          + " reads (models--ORG--NAME/snapshots/COMMIT, refs/REVISION). The operator runs it"
          + " as the router's init container (spec.router.tokenizer.download).",
      "Env: HF_TOKEN (bearer token, for gated or private models), HF_ENDPOINT (a mirror;"
          + " default https://huggingface.co). Progress goes to stderr, the snapshot path to"
          + " stdout. Exit 0 done, 1 the download failed, 2 bad arguments."
    })
final class FetchTokenizerCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--model",
      required = true,
      paramLabel = "ORG/NAME",
      description = "Hub model id, e.g. Qwen/Qwen3-8B.")
  String model;

  @Option(
      names = "--revision",
      paramLabel = "REV",
      defaultValue = "main",
      description = "Branch, tag or commit (default ${DEFAULT-VALUE}).")
  String revision;

  @Option(
      names = {"--cache-dir", "--dir"},
      paramLabel = "DIR",
      description =
          "Hub cache directory (holds models--…): default $HF_HUB_CACHE, else $HF_HOME/hub,"
              + " else ~/.cache/huggingface/hub.")
  Path dir;

  @Option(
      names = "--endpoint",
      paramLabel = "URL",
      description = "Hub or mirror base URL (default: $HF_ENDPOINT, else https://huggingface.co).")
  String endpoint;

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      defaultValue = "120",
      description = "Per file, the whole answer (default ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(
      names = "--max-file-bytes",
      paramLabel = "N",
      defaultValue = "67108864",
      description = "Largest file accepted (default ${DEFAULT-VALUE}, 64 MiB).")
  long maxFileBytes;

  /** The environment; tests substitute their own. */
  Map<String, String> env = System.getenv();

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    if (timeoutSeconds < 1 || maxFileBytes < 1) {
      err.println("infera-router fetch-tokenizer: --timeout and --max-file-bytes must be >= 1");
      return 2;
    }
    if (!HubNames.MODEL_ID.matcher(model).matches()) {
      err.println("infera-router fetch-tokenizer: --model: expected ORG/NAME, got '" + model + "'");
      return 2;
    }
    if (!HubNames.REVISION.matcher(revision).matches()) {
      err.println(
          "infera-router fetch-tokenizer: --revision: expected a branch, tag or commit, got '"
              + revision
              + "'");
      return 2;
    }
    TokenizerFetcher.Settings settings;
    try {
      Map<String, String> vars = env;
      if (endpoint != null) {
        vars = new java.util.HashMap<>(env);
        vars.put("HF_ENDPOINT", endpoint);
      }
      settings =
          TokenizerFetcher.Settings.fromEnv(vars, Duration.ofSeconds(timeoutSeconds), maxFileBytes);
    } catch (IllegalArgumentException e) {
      err.println("infera-router fetch-tokenizer: " + e.getMessage());
      return 2;
    }
    Path cache = dir != null ? dir : TokenizerSource.hubCache(env);
    err.println(
        "fetch-tokenizer: "
            + model
            + "@"
            + revision
            + " from "
            + settings.endpoint()
            + (settings.token() == null ? " (no HF_TOKEN)" : " (with HF_TOKEN)")
            + " into "
            + cache);
    err.flush();
    try {
      TokenizerFetcher.Result r = new TokenizerFetcher(settings, err).fetch(model, revision, cache);
      err.println(
          "fetch-tokenizer: done, commit " + r.commit() + ", " + String.join(", ", r.files()));
      err.flush();
      spec.commandLine().getOut().println(r.snapshot());
      spec.commandLine().getOut().flush();
      return 0;
    } catch (HubFetchException e) {
      err.println("infera-router fetch-tokenizer: " + e.getMessage());
      err.flush();
      return 1;
    }
  }
}
