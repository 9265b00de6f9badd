package io.infera.router.http;

import io.vertx.core.buffer.Buffer;

/**
 * Runs one action at the first non-empty chunk of a worker's answer, or at its end when it has
 * none: the moment the worker's first token arrived (engines send nothing of a streamed answer
 * before prefill is done, and a whole answer ends after decode). Event-loop only.
 */
final class FirstChunk implements ObservedStream.Observer {

  private Runnable first;

  /** Runs {@code first} once, at the first non-empty chunk or the end. */
  FirstChunk(Runnable first) {
    this.first = first;
  }

  @Override
  public void chunk(Buffer b) {
    if (b.length() > 0) {
      fire();
    }
  }

  @Override
  public void end() {
    fire();
  }

  private void fire() {
    Runnable f = first;
    if (f != null) {
      first = null;
      f.run();
    }
  }
}
