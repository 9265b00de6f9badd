package io.infera.router.cli;

import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import io.infera.router.kv.BlockHasher;
import io.infera.router.tokenize.ChatInput;
import io.infera.router.tokenize.ChatTemplate;
import io.infera.router.tokenize.ChatTemplateException;
import io.infera.router.tokenize.ContentFormat;
import io.infera.router.tokenize.PromptTokenizer;
import io.infera.router.tokenize.Tokenized;
import io.infera.router.tokenize.TokenizerException;
import io.infera.router.tokenize.TokenizerSource;
import io.infera.router.tokenize.VllmChat;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code infera-router tokenize}: what the router computes for a prompt. */
@Command(
    name = "tokenize",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    description = {
      "Render and tokenize a prompt exactly as the router does (and as vLLM does): a completion"
          + " prompt is encoded with the tokenizer's special tokens; chat messages are normalized"
          + " like vLLM, rendered with the model's chat template and encoded without them.",
      "Exit codes: 0 ok, 1 unreadable input or tokenizer, 2 bad input or template error."
    })
final class TokenizeCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--tokenizer",
      required = true,
      paramLabel = "DIR",
      description =
          "Tokenizer directory (tokenizer.json + tokenizer_config.json), a tokenizer.json file, a"
              + " hub id in the local Hugging Face cache, or builtin:qwen3.")
  String tokenizer;

  static final class Input {
    @Option(names = "--prompt", paramLabel = "TEXT", description = "A completion prompt.")
    String prompt;

    @Option(
        names = "--messages",
        paramLabel = "FILE.json",
        description =
            "Chat messages: a JSON array of messages, or a chat-completion request body (messages,"
                + " tools, add_generation_prompt, continue_final_message, chat_template_kwargs)."
                + " - reads standard input.")
    String messages;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Input input;

  @Option(names = "--tools", paramLabel = "FILE.json", description = "Tool schemas (JSON array).")
  Path tools;

  @Option(
      names = "--no-generation-prompt",
      description = "Render without the assistant turn header (add_generation_prompt=false).")
  boolean noGenerationPrompt;

  @Option(
      names = "--block-size",
      paramLabel = "N",
      description = "Also print the router's block hashes for this page size.")
  Integer blockSize;

  @Option(
      names = "--render-only",
      description =
          "Print exactly the rendered chat text and nothing else (tokenizer.json not needed).")
  boolean renderOnly;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (blockSize != null && blockSize < 1) {
      err.println("infera-router tokenize: --block-size must be >= 1, got " + blockSize);
      return 2;
    }
    if (renderOnly && input.messages == null) {
      err.println("infera-router tokenize: --render-only needs --messages");
      return 2;
    }
    try {
      TokenizerSource source = TokenizerSource.resolve(tokenizer, System.getenv());
      if (renderOnly) {
        ChatTemplate template = ChatTemplate.from(source.load(false));
        String text = template.render(chatInput(template.contentFormat()));
        out.print(text);
        out.flush();
        return 0;
      }
      try (PromptTokenizer pt =
          PromptTokenizer.load(source, PromptTokenizer.Options.defaults().withPrefixReuse(false))) {
        Tokenized t =
            input.prompt != null
                ? pt.encodeText(input.prompt)
                : pt.encodeChat(chatInput(pt.contentFormat()));
        print(out, t);
      }
      return 0;
    } catch (BadInput e) {
      err.println("infera-router tokenize: " + e.getMessage());
      return 2;
    } catch (ChatTemplateException e) {
      err.println("infera-router tokenize: " + e.describe());
      return 2;
    } catch (TokenizerException e) {
      err.println("infera-router tokenize: " + e.getMessage());
      return 1;
    }
  }

  private void print(PrintWriter out, Tokenized t) {
    long[] hashes = blockSize == null ? null : new BlockHasher(blockSize).requestHashes(t.ids(), 0);
    if (json) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("tokens", t.ids().length);
      o.put("ids", t.ids());
      if (t.rendered() != null) {
        o.put("rendered", t.rendered());
      }
      if (hashes != null) {
        o.put("block_size", blockSize);
        o.put("block_hashes", java.util.Arrays.stream(hashes).mapToObj(BlockHasher::hex).toList());
      }
      out.println(Json.write(o));
    } else {
      out.println("tokens " + t.ids().length);
      StringBuilder ids = new StringBuilder("ids ");
      for (int i = 0; i < t.ids().length; i++) {
        ids.append(i == 0 ? "" : ",").append(t.ids()[i]);
      }
      out.println(ids);
      if (hashes != null) {
        out.println("blocks " + hashes.length + " (block size " + blockSize + ")");
        for (long h : hashes) {
          out.println(BlockHasher.hex(h));
        }
      }
    }
    out.flush();
  }

  /** Thrown for unreadable or invalid message/tool files. */
  static final class BadInput extends Exception {
    BadInput(String message) {
      super(message, null, false, false);
    }
  }

  @SuppressWarnings("unchecked")
  private ChatInput chatInput(ContentFormat format) throws BadInput {
    Object doc = readJson(input.messages);
    List<?> messages;
    Object toolsValue = null;
    Object documents = null;
    boolean agp = !noGenerationPrompt;
    boolean continueFinal = false;
    Map<String, Object> kwargs = Map.of();
    if (doc instanceof List<?> l) {
      messages = l;
    } else if (doc instanceof Map<?, ?> m && m.get("messages") instanceof List<?> l) {
      messages = l;
      toolsValue = m.get("tools");
      documents = m.get("documents");
      if (m.get("add_generation_prompt") instanceof Boolean b) {
        agp = b && !noGenerationPrompt;
      }
      continueFinal = Boolean.TRUE.equals(m.get("continue_final_message"));
      if (m.get("chat_template_kwargs") instanceof Map<?, ?> kw) {
        kwargs = (Map<String, Object>) kw;
      }
    } else {
      throw new BadInput(
          input.messages + ": expected a JSON array of messages or an object with \"messages\"");
    }
    if (tools != null) {
      toolsValue = readJson(tools.toString());
    }
    if (toolsValue != null && !(toolsValue instanceof List)) {
      throw new BadInput("tools must be a JSON array");
    }
    try {
      return new ChatInput(
          VllmChat.normalize(messages, format),
          (List<Object>) toolsValue,
          documents instanceof List<?> d ? (List<Object>) d : null,
          agp,
          continueFinal,
          kwargs);
    } catch (VllmChat.InvalidMessage e) {
      throw new BadInput(e.getMessage());
    }
  }

  private static Object readJson(String file) throws BadInput {
    String text;
    try {
      text =
          "-".equals(file)
              ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
              : Files.readString(Path.of(file));
    } catch (NoSuchFileException e) {
      throw new BadInput("no such file: " + file);
    } catch (IOException e) {
      throw new BadInput("cannot read " + file + ": " + e.getMessage());
    }
    try {
      return Json.parse(text);
    } catch (JsonException e) {
      throw new BadInput(file + ": invalid JSON: " + e.getMessage());
    }
  }
}
