package io.infera.sim.cli;

import io.infera.sim.engine.EngineOptions;
import io.infera.sim.engine.Flavor;
import io.infera.sim.engine.SimEngine;
import java.io.PrintWriter;
import java.security.SecureRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code infera-sim engine}: runs one simulated vLLM/SGLang server until SIGTERM. */
@Command(
    name = "engine",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Runs a simulated vLLM/SGLang engine: vLLM's OpenAI HTTP API, a prefix-caching KV cache per"
          + " data-parallel rank, and real KV events over ZMQ in the chosen engine's wire format.",
      "Prints one line with the URL and the ZMQ endpoints, then serves until SIGTERM."
    })
public final class EngineCommand implements Callable<Integer> {

  /** Option fields as validation messages name them, and their flags (longest names first). */
  private static final String[][] FLAGS = {
    {"maxNumBatchedTokens", "--max-num-batched-tokens"},
    {"maxNumSeqs", "--max-num-seqs"},
    {"kvEventsHost", "--kv-events-host"},
    {"replayPort", "--replay-port"},
    {"zmqPort", "--zmq-port"},
    {"blockSize", "--block-size"},
    {"numBlocks", "--num-blocks"},
    {"dpSize", "--dp-size"},
    {"speedup", "--speedup"},
    {"tokenizer", "--tokenizer"},
    {"model", "--model"},
    {"topic", "--topic"},
    {"host", "--host"},
    {"port", "--port"}
  };

  @Spec CommandSpec spec;

  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Address to bind (HTTP and ZMQ). Default: ${DEFAULT-VALUE}.")
  String host;

  @Option(
      names = "--port",
      defaultValue = "8000",
      description = "HTTP port; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
  int port;

  @Option(
      names = "--zmq-port",
      defaultValue = "5557",
      description =
          "KV-event PUB port of rank 0 (rank r: port + r); 0 picks free ports, -1 publishes no"
              + " events. Default: ${DEFAULT-VALUE}.")
  int zmqPort;

  @Option(
      names = "--kv-events-host",
      description =
          "Address of the KV-event sockets, as vLLM's endpoint host: a wildcard (*, ::, 0.0.0.0)"
              + " is bound; any other address (127.0.0.1 in an operator pod) is connected to by"
              + " the PUB sockets, so the subscriber (the relay, --zmq-mode bind) binds it; the"
              + " replay ROUTER binds it either way. Default: --host, bound.")
  String kvEventsHost;

  @Option(
      names = "--replay-port",
      defaultValue = "-1",
      description =
          "Replay ROUTER port of rank 0 (rank r: port + r); 0 picks free ports, -1 binds none"
              + " (vLLM's default). Default: ${DEFAULT-VALUE}.")
  int replayPort;

  @Option(
      names = "--flavor",
      defaultValue = "vllm",
      converter = FlavorConverter.class,
      description =
          "KV-event wire format: vllm (vLLM 0.33.0), vllm-array (older vLLM), vllm-map or sglang"
              + " (SGLang 0.5.23). Default: ${DEFAULT-VALUE}.")
  Flavor flavor;

  @Option(
      names = "--block-size",
      defaultValue = "16",
      description = "Tokens per KV block (SGLang: page size). Default: ${DEFAULT-VALUE}.")
  int blockSize;

  @Option(
      names = "--num-blocks",
      defaultValue = "8192",
      description = "KV blocks per data-parallel rank. Default: ${DEFAULT-VALUE}.")
  int numBlocks;

  @Option(
      names = "--model",
      defaultValue = "Qwen/Qwen3-0.6B",
      description = "Served model name. Default: ${DEFAULT-VALUE}.")
  String model;

  @Option(
      names = "--tokenizer",
      defaultValue = "builtin:qwen3",
      description =
          "Tokenizer: a directory with tokenizer.json (+ tokenizer_config.json), a hub id in the"
              + " local cache, or builtin:qwen3. Default: ${DEFAULT-VALUE}.")
  String tokenizer;

  @Option(
      names = "--speedup",
      defaultValue = "1",
      description = "Virtual time per real time: steps sleep duration / speedup. Default: 1.")
  double speedup;

  @Option(
      names = "--dp-size",
      defaultValue = "1",
      description = "Data-parallel ranks. Default: ${DEFAULT-VALUE}.")
  int dpSize;

  @Option(
      names = "--hash-seed",
      defaultValue = "${env:PYTHONHASHSEED:-0}",
      description =
          "Seed of the engine's own block hashes (an integer, or 'random'). Default:"
              + " $PYTHONHASHSEED or 0.")
  String hashSeed;

  @Option(
      names = "--max-num-seqs",
      defaultValue = "256",
      description = "Most sequences per step. Default: ${DEFAULT-VALUE}.")
  int maxNumSeqs;

  @Option(
      names = "--max-num-batched-tokens",
      defaultValue = "8192",
      description = "Token budget per step. Default: ${DEFAULT-VALUE}.")
  int maxNumBatchedTokens;

  @Option(
      names = "--topic",
      defaultValue = "kv-events",
      description = "ZMQ topic frame of KV events. Default: ${DEFAULT-VALUE}.")
  String topic;

  @Option(
      names = "--enable-prompt-tokens-details",
      arity = "0..1",
      defaultValue = "true",
      fallbackValue = "true",
      description =
          "Report usage.prompt_tokens_details.cached_tokens (vLLM's flag of that name, SGLang's"
              + " --enable-cache-report; the operator sets them). Default: ${DEFAULT-VALUE}.")
  boolean promptTokensDetails;

  @Option(
      names = "--divergent-template",
      paramLabel = "TEXT",
      description =
          "Render every chat with TEXT before the chat template's output (completions, /tokenize"
              + " and KV events alike): an engine whose template differs from the router's, for"
              + " render-parity tests. Default: none (render as the router does).")
  String divergentTemplate;

  public EngineCommand() {}

  /** Parses {@code vllm}, {@code vllm-array}, {@code vllm-map}, {@code sglang}. */
  static final class FlavorConverter implements ITypeConverter<Flavor> {
    @Override
    public Flavor convert(String value) {
      try {
        return Flavor.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** The engine options these flags describe. */
  public EngineOptions options() {
    long seed = parseSeed(hashSeed);
    try {
      return EngineOptions.defaults().toBuilder()
          .host(host)
          .port(port)
          .zmqPort(zmqPort)
          .replayPort(replayPort)
          .flavor(flavor)
          .blockSize(blockSize)
          .numBlocks(numBlocks)
          .model(model)
          .tokenizer(tokenizer)
          .speedup(speedup)
          .dpSize(dpSize)
          .hashSeed(seed)
          .maxNumSeqs(maxNumSeqs)
          .maxNumBatchedTokens(maxNumBatchedTokens)
          .topic(topic)
          .promptTokensDetails(promptTokensDetails)
          .kvEventsHost(kvEventsHost)
          .divergentTemplate(divergentTemplate)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "invalid value: " + flagNames(e.getMessage()));
    }
  }

  /** Rewrites the option fields named in a validation message as their flags. */
  private static String flagNames(String message) {
    String out = message;
    for (String[] f : FLAGS) {
      out = out.replaceAll("(?<![\\w-])" + f[0] + "(?![\\w-])", f[1]);
    }
    return out;
  }

  private long parseSeed(String value) {
    String v = value == null ? "" : value.trim();
    if (v.equalsIgnoreCase("random")) {
      return new SecureRandom().nextLong() & 0xffffffffL;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new ParameterException(
          spec.commandLine(),
          "invalid --hash-seed '" + value + "' (an integer or 'random'; default $PYTHONHASHSEED)");
    }
  }

  @Override
  public Integer call() throws Exception {
    EngineOptions o = options();
    SimEngine engine = SimEngine.start(o, null, null);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  engine.close();
                  stopped.countDown();
                },
                "sim-engine-shutdown"));
    PrintWriter out = spec.commandLine().getOut();
    out.println(
        "infera-sim engine "
            + engine.name()
            + " url="
            + engine.url()
            + " zmq="
            + (engine.zmqEndpoint() == null ? "none" : engine.zmqEndpoint())
            + " replay="
            + (engine.replayEndpoint() == null ? "none" : engine.replayEndpoint())
            + " dp_size="
            + engine.dpSize()
            + " flavor="
            + o.flavor().cliName()
            + " model="
            + o.model());
    out.flush();
    stopped.await();
    return 0;
  }
}
