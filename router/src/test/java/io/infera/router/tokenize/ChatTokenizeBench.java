package io.infera.router.tokenize;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Render + tokenize of a 40-turn, ~32,000-token Qwen3 chat: render alone, encode alone, both cold
 * (no prefix reuse), and both with reuse when the previous turn (39 turns) was seen — each reuse
 * invocation uses a fresh conversation whose turn 39 was encoded in the setup.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx2g"})
public class ChatTokenizeBench {

  static final int TURNS = 40;

  PromptTokenizer cold;
  PromptTokenizer reuse;
  ChatInput chat;
  String rendered;
  int conversation;

  @Setup(Level.Trial)
  public void setup() throws Exception {
    cold =
        PromptTokenizer.load(
            new TokenizerSource.Builtin("qwen3"),
            PromptTokenizer.Options.defaults().withPrefixReuse(false));
    reuse =
        PromptTokenizer.load(
            new TokenizerSource.Builtin("qwen3"), PromptTokenizer.Options.defaults());
    chat = conversation(0, TURNS);
    rendered = cold.render(chat);
    System.out.printf(
        "%nchat: %d turns, %d chars, %d tokens%n",
        TURNS, rendered.length(), cold.encodeRendered(rendered).length);
  }

  @TearDown(Level.Trial)
  public void close() {
    cold.close();
    reuse.close();
  }

  /** A chat of {@code turns} user turns (the last one unanswered), ~800 tokens per turn. */
  static ChatInput conversation(int id, int turns) {
    Random r = new Random(42);
    String[] words = {
      "the", "model", "router", "cache", "prefix", "token", "latency", "worker", "request",
      "batch", "kernel", "memory", "scheduler", "throughput", "block", "engine", "prompt", "graph",
      "vector", "shard", "replica", "queue", "event", "stream"
    };
    List<Object> msgs = new ArrayList<>();
    msgs.add(
        Map.of(
            "role", "system", "content", "Conversation " + id + ". You are a precise assistant."));
    for (int t = 0; t < turns; t++) {
      msgs.add(Map.of("role", "user", "content", text(r, words, 380)));
      if (t < turns - 1) {
        msgs.add(Map.of("role", "assistant", "content", text(r, words, 380)));
      }
    }
    return new ChatInput(msgs, null, null, true, false, Map.of("enable_thinking", false));
  }

  private static String text(Random r, String[] words, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : (i % 17 == 0 ? ". " : " ")).append(words[r.nextInt(words.length)]);
    }
    return sb.append('.').toString();
  }

  /** Per invocation: a new conversation whose previous turn the reuse tokenizer has seen. */
  @State(Scope.Thread)
  public static class NextTurn {
    ChatInput turn40;

    @Setup(Level.Invocation)
    public void prime(ChatTokenizeBench b) throws Exception {
      int id = ++b.conversation;
      ChatInput full = conversation(id, TURNS);
      List<Object> previous =
          new ArrayList<>(full.messages().subList(0, full.messages().size() - 2));
      b.reuse.encodeChat(new ChatInput(previous, null, null, true, false, full.kwargs()));
      turn40 = full;
    }
  }

  @Benchmark
  public String renderOnly() throws Exception {
    return cold.render(chat);
  }

  @Benchmark
  public int[] encodeOnlyCold() {
    return cold.encodeRendered(rendered);
  }

  @Benchmark
  public Tokenized renderAndEncodeCold() throws Exception {
    return cold.encodeChat(chat);
  }

  @Benchmark
  public Tokenized renderAndEncodeWithReuse(NextTurn next) throws Exception {
    Tokenized t = reuse.encodeChat(next.turn40);
    if (t.reusedTokens() == 0) {
      throw new IllegalStateException("prefix was not reused");
    }
    return t;
  }
}
