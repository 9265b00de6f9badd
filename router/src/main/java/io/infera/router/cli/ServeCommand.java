package io.infera.router.cli;

import io.infera.router.config.ConfigException;
import io.infera.router.config.ConfigLoader;
import io.infera.router.config.Strictness;
import io.infera.router.http.RouterServer;
import io.infera.router.runtime.DefaultParts;
import io.infera.router.runtime.RouterRuntime;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code infera-router serve}: the router service. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Run the KV-cache-aware router: OpenAI-compatible HTTP in front of the engine workers.",
      "Settings come from a RouterConfig YAML (--config), environment variables and flags;"
          + " flag > env > file > default. Each flag's environment variable is INFERA_ + the"
          + " flag name in upper case (--router-policy -> INFERA_ROUTER_POLICY)."
    })
public final class ServeCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "RouterConfig YAML (docs/contracts.md). Env: INFERA_CONFIG.")
  Path config;

  @Option(names = "--model", paramLabel = "NAME", description = "Served model name.")
  String model;

  @Option(
      names = "--router-policy",
      paramLabel = "POLICY",
      description = "kv-aware (default), approx-prefix, least-loaded or round-robin.")
  String policy;

  @Option(
      names = "--kv-overlap-weight",
      paramLabel = "W",
      description =
          "A fixed weight of missed blocks against load: setting it (or a per-role weight) turns"
              + " the self-tuning weight off (policy.overlapWeightMode fixed). Unset: each pool's"
              + " weight is tuned online from observed time to first token, from 1.0 within"
              + " [0.25, 32] (policy.tuner.*).")
  String overlapWeight;

  @Option(
      names = "--kv-prefill-overlap-weight",
      paramLabel = "W",
      description =
          "Fixed overlap weight for prefill workers (default: --kv-overlap-weight); also turns"
              + " tuning off.")
  String prefillWeight;

  @Option(
      names = "--kv-decode-overlap-weight",
      paramLabel = "W",
      description =
          "Fixed overlap weight for decode workers (default: --kv-overlap-weight); also turns"
              + " tuning off.")
  String decodeWeight;

  @Option(
      names = "--decode-input-demand",
      paramLabel = "MODE",
      description =
          "Decode input-demand routing (kv-aware only): off (default), shadow (the usual decode"
              + " pick, plus demand bookkeeping, a suggested target and decision metrics) or on"
              + " (the decode worker or rank with the fewest projected in-flight input tokens"
              + " wins).")
  String decodeInputDemand;

  @Option(
      names = "--decode-request-weight",
      paramLabel = "W",
      description =
          "Tokens each in-flight request adds to a decode target's demand cost (default 0;"
              + " needs --decode-input-demand shadow or on).")
  String decodeRequestWeight;

  @Option(
      names = "--pd-prefill-guard-release",
      paramLabel = "WHEN",
      description =
          "When a prefill/decode pair's prefill booking is released: decode (default: when the"
              + " decode half ends) or completion (when the prefill answer completes).")
  String prefillGuardRelease;

  @Option(
      names = "--session-affinity",
      paramLabel = "MODE",
      description =
          "off (default), prefill (a session keeps its prefill-side worker) or both (also its"
              + " decode worker and rank). The session comes from the --session-affinity-header"
              + " header or the body's prompt_cache_key. Env: INFERA_SESSION_AFFINITY.")
  String sessionAffinity;

  @Option(
      names = "--session-affinity-header",
      paramLabel = "NAME",
      description =
          "Request header holding a session id (default x-session-id; it wins over"
              + " prompt_cache_key). Env: INFERA_SESSION_AFFINITY_HEADER.")
  String sessionAffinityHeader;

  @Option(
      names = "--router-tokenizer-path",
      paramLabel = "PATH",
      description =
          "Tokenizer directory, tokenizer.json, hub id in the local cache, or builtin:qwen3.")
  String tokenizerPath;

  @Option(
      names = "--kv-event-transport",
      paramLabel = "T",
      description = "zmq (default), inproc or nats.")
  String transport;

  @Option(
      names = "--discovery-backend",
      paramLabel = "B",
      description = "static (default) or kubernetes.")
  String backend;

  @Option(names = "--block-size", paramLabel = "N", description = "KV block size (default 16).")
  String blockSize;

  @Option(names = "--port", paramLabel = "PORT", description = "HTTP port (default 8000).")
  String port;

  @Option(
      names = "--admin-port",
      paramLabel = "PORT",
      description =
          "Admin port: /v1/admin/*, /v1/workers, /metrics (default 8081; never the HTTP port).")
  String adminPort;

  @Option(
      names = "--strict-config",
      description =
          "Refuse a RouterConfig key this router does not know instead of ignoring it with a"
              + " warning (docs/contracts.md, \"Version skew\"). Env: INFERA_STRICT_CONFIG=true.")
  boolean strictConfig;

  @Override
  public Integer call() {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("--model", model);
    flags.put("--router-policy", policy);
    flags.put("--kv-overlap-weight", overlapWeight);
    flags.put("--kv-prefill-overlap-weight", prefillWeight);
    flags.put("--kv-decode-overlap-weight", decodeWeight);
    flags.put("--decode-input-demand", decodeInputDemand);
    flags.put("--decode-request-weight", decodeRequestWeight);
    flags.put("--pd-prefill-guard-release", prefillGuardRelease);
    flags.put("--session-affinity", sessionAffinity);
    flags.put("--session-affinity-header", sessionAffinityHeader);
    flags.put("--router-tokenizer-path", tokenizerPath);
    flags.put("--kv-event-transport", transport);
    flags.put("--discovery-backend", backend);
    flags.put("--block-size", blockSize);
    flags.put("--port", port);
    flags.put("--admin-port", adminPort);
    flags.values().removeIf(v -> v == null);
    Path file = config;
    if (file == null && System.getenv("INFERA_CONFIG") != null) {
      file = Path.of(System.getenv("INFERA_CONFIG"));
    }
    Strictness strictness =
        strictConfig || "true".equalsIgnoreCase(System.getenv("INFERA_STRICT_CONFIG"))
            ? Strictness.STRICT
            : Strictness.LENIENT;
    ConfigLoader.Loaded loaded;
    try {
      loaded = ConfigLoader.read(file, System.getenv(), flags, strictness);
    } catch (ConfigException e) {
      spec.commandLine()
          .getErr()
          .println("infera-router serve: invalid configuration: " + e.getMessage());
      return 2;
    }
    RouterRuntime rt = null;
    RouterServer server = null;
    try {
      rt = RouterRuntime.start(loaded.config(), new DefaultParts(), loaded.ignored());
      server = RouterServer.standalone(rt);
      server.startAndWait(java.time.Duration.ofSeconds(30));
    } catch (Exception e) {
      Throwable cause =
          e.getCause() != null && e instanceof java.util.concurrent.ExecutionException
              ? e.getCause()
              : e;
      spec.commandLine()
          .getErr()
          .println("infera-router serve: cannot start: " + cause.getMessage());
      if (server != null) {
        server.close();
      }
      if (rt != null) {
        rt.close();
      }
      return 1;
    }
    RouterServer running = server;
    RouterRuntime core = rt;
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  running.close();
                  core.close();
                  stopped.countDown();
                },
                "infera-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }
}
