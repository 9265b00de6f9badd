package io.infera.router.runtime;

import io.infera.router.config.RouterConfig;
import io.infera.router.discovery.Discovery;
import io.infera.router.discovery.KubernetesDiscovery;
import io.infera.router.discovery.StaticDiscovery;
import io.infera.router.events.EventTransport;
import io.infera.router.events.inproc.InprocBus;
import io.infera.router.events.inproc.InprocTransport;
import io.infera.router.events.nats.NatsTransport;
import io.infera.router.events.zmq.ZmqTransport;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TokenizerException;
import io.infera.router.tokenize.TokenizerSource;
import java.util.Map;

/** The production parts: discovery, transport and tokenizer as the config says. */
public final class DefaultParts implements RouterRuntime.Parts {

  private final Map<String, String> env;

  /** Parts that read the process environment (the hub cache from HF_HUB_CACHE / HF_HOME). */
  public DefaultParts() {
    this(System.getenv());
  }

  /** Parts that find the hub cache through {@code env} instead of the process environment. */
  public DefaultParts(Map<String, String> env) {
    this.env = Map.copyOf(env);
  }

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
            TokenizerSource.resolve(config.tokenizer().path(), config.tokenizer().revision(), env),
            PromptTokenizer.Options.defaults()
                .withPrefixReuse(config.tokenizer().prefixReuse())
                .withBudget(
                    config.limits().analysis().tokenizeMaxChars(),
                    config.limits().analysis().tokenizeMaxPieceChars()))
        .templateBudget(config.limits().template());
  }
}
