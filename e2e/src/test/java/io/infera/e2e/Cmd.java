package io.infera.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short host command (ip, mount, tar) and fails with its output when it fails. */
final class Cmd {

  private Cmd() {}

  /** Runs {@code argv}; returns its output; throws with the output when the exit code is not 0. */
  static String run(String... argv) {
    Result r = tryRun(argv);
    if (r.code() != 0) {
      throw new IllegalStateException(
          String.join(" ", argv) + " exited " + r.code() + ": " + r.out());
    }
    return r.out();
  }

  /** Runs {@code argv}; never throws for a non-zero exit. */
  static Result tryRun(String... argv) {
    try {
      Process p = new ProcessBuilder(List.of(argv)).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        return new Result(-1, out + " (timed out)");
      }
      return new Result(p.exitValue(), out);
    } catch (IOException e) {
      return new Result(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, "interrupted");
    }
  }

  /** Exit code ({@code -1}: could not run) and combined output. */
  record Result(int code, String out) {}
}
