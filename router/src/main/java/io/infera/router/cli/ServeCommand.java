package io.infera.router.cli;

import io.infera.router.config.ConfigException;
import io.infera.router.config.ConfigLoader;
import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.discovery.KubernetesDiscovery;
import io.infera.router.discovery.StaticDiscovery;
import io.infera.router.events.EventTransport;
import io.infera.router.events.inproc.InprocBus;
import io.infera.router.events.inproc.InprocTransport;
import io.infera.router.events.nats.NatsTransport;
import io.infera.router.events.zmq.ZmqTransport;
import io.infera.router.http.RouterServer;
import io.infera.router.runtime.RouterRuntime;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TokenizerException;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code infera-router serve}: the router service. */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
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
      description = "RouterConfig YAML (docs/contracts.md, \"RouterConfig\"). Env: INFERA_CONFIG.")
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
      description = "Weight of missed blocks against load (default 1.0).")
  String overlapWeight;

  @Option(
      names = "--kv-prefill-overlap-weight",
      paramLabel = "W",
      description = "Overlap weight for prefill workers (default: --kv-overlap-weight).")
  String prefillWeight;

  @Option(
      names = "--kv-decode-overlap-weight",
      paramLabel = "W",
      description = "Overlap weight for decode workers (default: --kv-overlap-weight).")
  String decodeWeight;

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

  @Override
  public Integer call() {
    Map<String, String> flags = new LinkedHashMap<>();
    flags.put("--model", model);
    flags.put("--router-policy", policy);
    flags.put("--kv-overlap-weight", overlapWeight);
    flags.put("--kv-prefill-overlap-weight", prefillWeight);
    flags.put("--kv-decode-overlap-weight", decodeWeight);
    flags.put("--router-tokenizer-path", tokenizerPath);
    flags.put("--kv-event-transport", transport);
    flags.put("--discovery-backend", backend);
    flags.put("--block-size", blockSize);
    flags.put("--port", port);
    flags.values().removeIf(v -> v == null);
    Path file = config;
    if (file == null && System.getenv("INFERA_CONFIG") != null) {
      file = Path.of(System.getenv("INFERA_CONFIG"));
    }
    RouterConfig cfg;
    try {
      cfg = ConfigLoader.load(file, System.getenv(), flags);
    } catch (ConfigException e) {
      spec.commandLine()
          .getErr()
          .println("infera-router serve: invalid configuration: " + e.getMessage());
      return 2;
    }
    Vertx vertx = Vertx.vertx();
    RouterRuntime rt;
    RouterServer server;
    try {
      rt = RouterRuntime.start(cfg, new DefaultParts());
      server = new RouterServer(vertx, rt);
      server.start().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      Throwable cause =
          e.getCause() != null && e instanceof java.util.concurrent.ExecutionException
              ? e.getCause()
              : e;
      spec.commandLine()
          .getErr()
          .println("infera-router serve: cannot start: " + cause.getMessage());
      vertx.close();
      return 1;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  rt.close();
                  vertx.close();
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

  /** The production parts: discovery, transport and tokenizer as the config says. */
  public static final class DefaultParts implements RouterRuntime.Parts {
    @Override
    public Discovery discovery(RouterConfig config) {
      return switch (config.discovery().backend()) {
        case STATIC -> new StaticDiscovery(config.discovery().workers());
        case KUBERNETES -> KubernetesDiscovery.create(config.discovery());
      };
    }

    @Override
    public EventTransport transport(RouterConfig config) {
      return switch (config.events().transport()) {
        case ZMQ -> new ZmqTransport();
        case INPROC -> new InprocTransport(InprocBus.named(config.events().inprocBus()));
        case NATS -> new NatsTransport(config.events().nats(), config.pageSize());
      };
    }

    @Override
    public PromptTokenizer tokenizer(RouterConfig config) throws TokenizerException {
      if (config.tokenizer().mode() == RouterConfig.TokenizerMode.ENGINE) {
        return null;
      }
      return PromptTokenizer.load(
          config.tokenizer().path(),
          PromptTokenizer.Options.defaults().withPrefixReuse(config.tokenizer().prefixReuse()));
    }
  }
}
