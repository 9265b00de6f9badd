package io.infera.router.tokenize;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The router's tokenizer: a model's tokenizer plus its chat template, encoding prompts as vLLM does
 * (completion text with special tokens, rendered chats without, token arrays as is), with
 * multi-turn prefix reuse for chats. Thread-safe.
 */
public final class PromptTokenizer implements AutoCloseable {

  /**
   * @param prefixReuse reuse token ids of previously seen rendered prefixes
   * @param prefixCacheTokens bound of the prefix cache, in stored tokens
   * @param clock what {@code strftime_now} sees
   * @param maxChars the longest text (completion prompt or rendered chat) that is tokenized; longer
   *     ones throw {@link TokenizeBudgetException} before the tokenizer sees them
   * @param maxPieceChars the longest text one native tokenizer call gets ({@link
   *     HfTokenizer#encode(String, boolean, int)})
   */
  public record Options(
      boolean prefixReuse, long prefixCacheTokens, Clock clock, int maxChars, int maxPieceChars) {

    /** The default {@code limits.tokenizeMaxChars}: see docs/operations.md for the measurement. */
    public static final int DEFAULT_MAX_CHARS = 8 << 20;

    public static Options defaults() {
      return new Options(
          true,
          4_000_000,
          Clock.systemDefaultZone(),
          DEFAULT_MAX_CHARS,
          HfTokenizer.DEFAULT_MAX_PIECE_CHARS);
    }

    public Options withPrefixReuse(boolean on) {
      return new Options(on, prefixCacheTokens, clock, maxChars, maxPieceChars);
    }

    public Options withClock(Clock c) {
      return new Options(prefixReuse, prefixCacheTokens, c, maxChars, maxPieceChars);
    }

    /** The tokenization budget ({@code limits.tokenizeMaxChars}, {@code tokenizeMaxPieceChars}). */
    public Options withBudget(int chars, int pieceChars) {
      return new Options(prefixReuse, prefixCacheTokens, clock, chars, pieceChars);
    }
  }

  private final HfTokenizer tokenizer;
  private final ChatTemplate template;
  private final PrefixCache cache;
  private final Options options;
  private final String reuseDisabledReason;

  private PromptTokenizer(HfTokenizer tokenizer, ChatTemplate template, Options options) {
    this.tokenizer = tokenizer;
    this.template = template;
    this.options = options;
    PrefixCache c = new PrefixCache(tokenizer.addedTokens(), options.prefixCacheTokens());
    String reason = null;
    if (!options.prefixReuse()) {
      reason = "disabled by configuration";
    } else {
      reason = splitCheck(c);
    }
    this.cache = reason == null ? c : null;
    this.reuseDisabledReason = reason;
  }

  /** Loads tokenizer and (when present) chat template from one source. */
  public static PromptTokenizer load(TokenizerSource source, Options options)
      throws TokenizerException {
    ModelFiles files = source.load(true);
    HfTokenizer tok = HfTokenizer.load(files.tokenizerJson(), files.origin());
    ChatTemplate template = null;
    try {
      template = ChatTemplate.from(files);
    } catch (TokenizerException noTemplate) {
      // completion-only models have no template; chat requests then fail with a clear error
    }
    return new PromptTokenizer(tok, template, options);
  }

  /** Resolves {@code --tokenizer} (directory, tokenizer.json, hub id, builtin:NAME) and loads. */
  public static PromptTokenizer load(String spec, Options options) throws TokenizerException {
    return load(spec, null, options);
  }

  /** As {@link #load(String, Options)}, a hub id at {@code revision} (null: {@code main}). */
  public static PromptTokenizer load(String spec, String revision, Options options)
      throws TokenizerException {
    return load(TokenizerSource.resolve(spec, revision, System.getenv()), options);
  }

  /** Limits of every chat-template render (config {@code limits.template*}). */
  private volatile TemplateBudget templateBudget = TemplateBudget.DEFAULTS;

  /** Sets the budget of every later render; returns this. */
  public PromptTokenizer templateBudget(TemplateBudget budget) {
    this.templateBudget = java.util.Objects.requireNonNull(budget, "budget");
    return this;
  }

  public boolean hasChatTemplate() {
    return template != null;
  }

  public ChatTemplate template() throws TokenizerException {
    if (template == null) {
      throw new TokenizerException(tokenizer.origin() + " has no chat template");
    }
    return template;
  }

  public ContentFormat contentFormat() {
    return template == null ? ContentFormat.STRING : template.contentFormat();
  }

  /** Null when prefix reuse is on, else why it is off. */
  public String reuseDisabledReason() {
    return reuseDisabledReason;
  }

  /**
   * Tokenizes any prompt as vLLM would; empty for a batch (route it by load).
   *
   * @throws TokenizerException when a chat needs a template the model does not have
   * @throws ChatTemplateException when the template fails
   */
  public java.util.Optional<Tokenized> tokenize(Prompt prompt) throws TokenizerException {
    if (prompt instanceof Prompt.Text t) {
      return java.util.Optional.of(encodeText(t.text()));
    }
    if (prompt instanceof Prompt.Tokens t) {
      return java.util.Optional.of(new Tokenized(t.ids().clone(), null, 0, 0, 0));
    }
    if (prompt instanceof Prompt.Chat c) {
      return java.util.Optional.of(
          c.template() == null ? encodeChat(c.input()) : encodeChat(c.input(), c.template()));
    }
    return java.util.Optional.empty();
  }

  /** A completion prompt: encoded with the tokenizer's special tokens (BOS, …). */
  public Tokenized encodeText(String prompt) {
    long t0 = System.nanoTime();
    checkBudget(prompt.length());
    int[] ids = tokenizer.encode(prompt, true, options.maxPieceChars());
    return new Tokenized(ids, null, 0, 0, System.nanoTime() - t0);
  }

  /** Renders the chat template. */
  public String render(ChatInput input) throws TokenizerException {
    return template().render(input, options.clock(), templateBudget);
  }

  /** A chat: rendered, then encoded without added special tokens, reusing cached prefixes. */
  public Tokenized encodeChat(ChatInput input) throws TokenizerException {
    long t0 = System.nanoTime();
    String text = render(input);
    long t1 = System.nanoTime();
    Tokenized t = encodeRenderedText(text);
    return new Tokenized(t.ids(), text, t.reusedTokens(), t1 - t0, t.encodeNanos(), t.reusedFrom());
  }

  /** Request templates compiled lately, by source (a client usually sends the same one). */
  private final java.util.LinkedHashMap<String, ChatTemplate> requestTemplates =
      new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, ChatTemplate> e) {
          return size() > 32;
        }
      };

  /**
   * A chat rendered with the request's own {@code chat_template} (vLLM accepts one per request),
   * with the model's special tokens; then encoded as {@link #encodeChat(ChatInput)} does.
   *
   * @throws ChatTemplateException when the template does not parse or fails
   */
  public Tokenized encodeChat(ChatInput input, String templateSource) {
    ChatTemplate t;
    synchronized (requestTemplates) {
      t = requestTemplates.get(templateSource);
    }
    if (t == null) {
      t = ChatTemplate.of(templateSource, template == null ? Map.of() : template.specialTokens());
      synchronized (requestTemplates) {
        requestTemplates.put(templateSource, t);
      }
    }
    long t0 = System.nanoTime();
    String text = t.render(input, options.clock(), templateBudget);
    long t1 = System.nanoTime();
    Tokenized enc = encodeRenderedText(text);
    return new Tokenized(
        enc.ids(), text, enc.reusedTokens(), t1 - t0, enc.encodeNanos(), enc.reusedFrom());
  }

  /**
   * Encodes an already rendered chat text without added special tokens, reusing (and then
   * remembering) cached prefixes when reuse is on.
   */
  public Tokenized encodeRenderedText(String text) {
    long t1 = System.nanoTime();
    checkBudget(text.length());
    int[] ids;
    int reused = 0;
    int[] reusedFrom = null;
    if (cache == null) {
      ids = tokenizer.encode(text, false, options.maxPieceChars());
    } else {
      PrefixCache.Scan scan = cache.scan(text);
      PrefixCache.Hit hit = cache.find(scan);
      if (hit == null) {
        ids = tokenizer.encode(text, false, options.maxPieceChars());
      } else {
        int[] rest = tokenizer.encode(text.substring(hit.chars()), false, options.maxPieceChars());
        ids = Arrays.copyOf(hit.ids(), hit.ids().length + rest.length);
        System.arraycopy(rest, 0, ids, hit.ids().length, rest.length);
        reused = hit.ids().length;
        reusedFrom = hit.source();
      }
      cache.remember(scan, ids);
    }
    long t2 = System.nanoTime();
    return new Tokenized(ids, text, reused, 0, t2 - t1, reusedFrom);
  }

  /** The budget: {@code chars} of text may be tokenized, else {@link TokenizeBudgetException}. */
  public void checkBudget(long chars) {
    if (chars > options.maxChars()) {
      throw new TokenizeBudgetException(
          TokenizeBudgetException.TOO_LONG,
          chars + " chars, over limits.tokenizeMaxChars (" + options.maxChars() + ")");
    }
  }

  public Options options() {
    return options;
  }

  /** Encodes rendered chat text without reuse (tests compare against it). */
  public int[] encodeRendered(String text) {
    return tokenizer.encode(text, false);
  }

  /** Prefix-cache counters: hits, misses, boundary mismatches, stored tokens. */
  public Map<String, Long> cacheStats() {
    Map<String, Long> m = new LinkedHashMap<>();
    if (cache != null) {
      m.put("hits", cache.hits());
      m.put("misses", cache.misses());
      m.put("mismatches", cache.mismatches());
      m.put("stored_tokens", cache.storedTokens());
    }
    return m;
  }

  public HfTokenizer tokenizer() {
    return tokenizer;
  }

  @Override
  public void close() {
    tokenizer.close();
  }

  /**
   * Checks that this tokenizer splits at added-token boundaries: every boundary of probe texts (a
   * rendered sample chat, and synthetic texts with awkward whitespace after each special token)
   * must encode identically whole and in two halves. Returns null on success.
   */
  private String splitCheck(PrefixCache c) {
    List<String> probes = new ArrayList<>();
    if (template != null) {
      try {
        List<Object> msgs = new ArrayList<>();
        msgs.add(Map.of("role", "system", "content", "You are terse.  "));
        msgs.add(Map.of("role", "user", "content", "  Hello\n\nthere "));
        msgs.add(Map.of("role", "assistant", "content", "\nHi!\t"));
        msgs.add(Map.of("role", "user", "content", "Bye 你好 🙂"));
        probes.add(template.render(ChatInput.of(msgs), options.clock()));
      } catch (RuntimeException templateRejectedProbe) {
        // some templates reject system messages etc.; the synthetic probes still run
      }
    }
    int n = 0;
    for (HfTokenizer.AddedToken t : tokenizer.addedTokens()) {
      if (t.special() && t.isCleanBoundary() && n++ < 8) {
        String s = t.content();
        probes.add("a" + s + "b" + s + "  b\n\n c " + s + "\n\n" + s + " d" + s + "\t\u00a0x");
      }
    }
    for (String text : probes) {
      int[] whole = tokenizer.encode(text, false);
      PrefixCache.Scan scan = c.scan(text);
      for (int b : scan.positions()) {
        int[] left = tokenizer.encode(text.substring(0, b), false);
        int[] right = tokenizer.encode(text.substring(b), false);
        int[] joined = Arrays.copyOf(left, left.length + right.length);
        System.arraycopy(right, 0, joined, left.length, right.length);
        if (!Arrays.equals(whole, joined)) {
          return "tokenizer does not split cleanly at added tokens (probe boundary " + b + ")";
        }
      }
    }
    return null;
  }
}
