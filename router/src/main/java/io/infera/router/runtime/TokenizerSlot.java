package io.infera.router.runtime;

import io.infera.router.config.RouterConfig;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.TokenizerException;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's local tokenizer, loaded once at start. A local tokenizer whose files are missing
 * does not stop the router: the slot stays empty with the reason (the file looked for, logged once
 * and again only when it changes) and is retried every {@link #RETRY_SECONDS} s on a thread of its
 * own, so a cache filled after the start is picked up without a restart. Engine mode has no local
 * tokenizer; its failures propagate.
 */
final class TokenizerSlot implements AutoCloseable {

  /** How often a local tokenizer that failed to load is tried again. */
  static final long RETRY_SECONDS = 5;

  private static final Logger log = LoggerFactory.getLogger(TokenizerSlot.class);

  private final RouterConfig config;
  private final RouterRuntime.Parts parts;
  private volatile PromptTokenizer tokenizer;
  private volatile String problem;
  private volatile boolean closed;
  private final ScheduledExecutorService retry;

  TokenizerSlot(RouterConfig config, RouterRuntime.Parts parts) throws Exception {
    this.config = config;
    this.parts = parts;
    ScheduledExecutorService r = null;
    try {
      tokenizer = parts.tokenizer(config);
    } catch (TokenizerException e) {
      if (config.tokenizer().mode() != RouterConfig.TokenizerMode.LOCAL) {
        throw e;
      }
      problem = e.getMessage();
      log.error(
          "tokenizer not loaded, router not ready until it is (retrying every {} s): {}",
          RETRY_SECONDS,
          problem);
      r =
          Executors.newSingleThreadScheduledExecutor(
              task -> {
                Thread t = new Thread(task, "infera-tokenizer-retry");
                t.setDaemon(true);
                return t;
              });
      r.scheduleWithFixedDelay(this::retry, RETRY_SECONDS, RETRY_SECONDS, TimeUnit.SECONDS);
    }
    this.retry = r;
  }

  /** The tokenizer; null in engine mode and while {@link #problem()} is set. */
  PromptTokenizer get() {
    return tokenizer;
  }

  /** Why the local tokenizer is not loaded yet, or null. */
  String problem() {
    return problem;
  }

  private void retry() {
    if (closed) {
      retry.shutdown();
      return;
    }
    try {
      PromptTokenizer loaded = parts.tokenizer(config);
      tokenizer = loaded;
      problem = null;
      log.info("tokenizer loaded source={}", config.tokenizer().path());
      retry.shutdown();
    } catch (Exception e) {
      String message = e.getMessage();
      if (!Objects.equals(message, problem)) {
        // Logged again only when the reason changes (a cache half filled, then complete).
        log.error("tokenizer still not loaded: {}", message);
        problem = message;
      }
    }
  }

  /** Stops the retries; closes the tokenizer when the parts say the runtime owns it. */
  @Override
  public void close() {
    closed = true;
    if (retry != null) {
      retry.shutdownNow();
    }
    PromptTokenizer tok = tokenizer;
    if (tok != null && parts.ownsTokenizer()) {
      tok.close();
    }
  }
}
