package io.infera.router.tokenize;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Measures where the native tokenizer stops surviving: each (shape, size) is encoded in a fresh JVM
 * with the router's memory settings (1 GiB, 70 % heap), so an abort only ends that child. Prints
 * one line per run; the figures are in docs/operations.md ("Tokenization budget").
 *
 * <p>Run: {@code java -cp <router test classpath> io.infera.router.tokenize.TokenizeLimitProbe
 * [shapes] [sizes in chars, comma separated]}.
 */
public final class TokenizeLimitProbe {

  private TokenizeLimitProbe() {}

  /** The shapes probed: how the text is built from a seed. */
  static String text(String shape, int chars) {
    Random r = new Random(chars);
    StringBuilder sb = new StringBuilder(chars);
    switch (shape) {
      case "word" -> {
        // one word, no spaces: a single pre-token
        while (sb.length() < chars) {
          sb.append((char) ('a' + r.nextInt(26)));
        }
      }
      case "repeat" -> sb.append("a".repeat(chars));
      case "spaces" -> sb.append("x").append(" ".repeat(chars - 2)).append("y");
      case "newlines" -> sb.append("x").append("\n".repeat(chars - 2)).append("y");
      case "cjk" -> {
        while (sb.length() < chars) {
          sb.append((char) (0x4E00 + r.nextInt(0x5000)));
        }
      }
      case "digits" -> {
        while (sb.length() < chars) {
          sb.append((char) ('0' + r.nextInt(10)));
        }
      }
      case "text" -> {
        // words of 1..10 letters, spaces, some punctuation: ordinary prose-like input
        while (sb.length() < chars) {
          int n = 1 + r.nextInt(10);
          for (int i = 0; i < n; i++) {
            sb.append((char) ('a' + r.nextInt(26)));
          }
          sb.append(r.nextInt(12) == 0 ? ". " : " ");
        }
      }
      default -> throw new IllegalArgumentException(shape);
    }
    sb.setLength(chars);
    return sb.toString();
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("child")) {
      child(args[1], Integer.parseInt(args[2]));
      return;
    }
    String[] shapes =
        (args.length > 0 ? args[0] : "text,word,repeat,spaces,newlines,cjk,digits").split(",");
    String[] sizes = (args.length > 1 ? args[1] : "1000000,4000000,16000000,24000000").split(",");
    long timeoutSec = args.length > 2 ? Long.parseLong(args[2]) : 300;
    for (String shape : shapes) {
      for (String size : sizes) {
        System.out.println(run(shape, Integer.parseInt(size), timeoutSec));
      }
    }
  }

  private static String run(String shape, int chars, long timeoutSec) throws Exception {
    Path log = Files.createTempFile("tokprobe", ".log");
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.add("-XX:MaxRAM=1g");
    cmd.add("-XX:MaxRAMPercentage=70");
    cmd.add("-XX:+ExitOnOutOfMemoryError");
    cmd.add("-XX:ErrorFile=/dev/null");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(TokenizeLimitProbe.class.getName());
    cmd.add("child");
    cmd.add(shape);
    cmd.add(Integer.toString(chars));
    long t0 = System.nanoTime();
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    boolean done = p.waitFor(timeoutSec, TimeUnit.SECONDS);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    if (!done) {
      p.destroyForcibly().waitFor();
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    Files.delete(log);
    String ok = out.lines().filter(l -> l.startsWith("OK ")).findFirst().orElse(null);
    if (ok != null) {
      return ok;
    }
    String last =
        out.lines()
            .filter(
                l ->
                    l.contains("panicked")
                        || l.contains("Error")
                        || l.contains("SIGSEGV")
                        || l.contains("memory")
                        || l.contains("Aborted"))
            .findFirst()
            .orElse(out.length() > 300 ? out.substring(0, 300) : out)
            .replace('\n', ' ');
    return String.format(
        "FAIL shape=%s chars=%d exit=%s wall_ms=%d out=%s",
        shape, chars, done ? Integer.toString(p.exitValue()) : "timeout", ms, last);
  }

  private static void child(String shape, int chars) throws Exception {
    String s = text(shape, chars);
    int bytes = s.getBytes(StandardCharsets.UTF_8).length;
    try (PromptTokenizer t =
        PromptTokenizer.load(
            new TokenizerSource.Builtin("qwen3"), PromptTokenizer.Options.defaults())) {
      long t0 = System.nanoTime();
      int[] ids;
      try {
        ids = t.tokenizer().encode(s, true);
      } catch (TokenizeBudgetException e) {
        System.out.printf(
            "OK shape=%s chars=%d REFUSED reason=%s check_ms=%d vm_hwm_mb=%d%n",
            shape, chars, e.reason(), (System.nanoTime() - t0) / 1_000_000, hwmMb());
        return;
      }
      long ms = (System.nanoTime() - t0) / 1_000_000;
      Runtime rt = Runtime.getRuntime();
      System.out.printf(
          "OK shape=%s chars=%d utf8_bytes=%d tokens=%d encode_ms=%d heap_max_mb=%d"
              + " heap_used_mb=%d vm_hwm_mb=%d%n",
          shape,
          chars,
          bytes,
          ids.length,
          ms,
          rt.maxMemory() >> 20,
          (rt.totalMemory() - rt.freeMemory()) >> 20,
          hwmMb());
    }
  }

  private static long hwmMb() throws Exception {
    for (String l : Files.readAllLines(new File("/proc/self/status").toPath())) {
      if (l.startsWith("VmHWM:")) {
        return Long.parseLong(l.replaceAll("[^0-9]", "")) >> 10;
      }
    }
    return -1;
  }
}
