package io.infera.router.tokenize;

import io.infera.router.json.Json;
import io.infera.router.json.JsonException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Where a tokenizer comes from: a directory holding {@code tokenizer.json} (+ {@code
 * tokenizer_config.json}, {@code chat_template.jinja}), a {@code tokenizer.json} path, a Hugging
 * Face hub id resolved in the local cache ({@code $HF_HUB_CACHE}, {@code $HF_HOME/hub} or {@code
 * ~/.cache/huggingface/hub}; never downloaded), or one bundled in the jar ({@code builtin:qwen3}).
 */
public sealed interface TokenizerSource {

  /** Loads the files; {@code needTokenizer} false allows a template-only directory. */
  ModelFiles load(boolean needTokenizer) throws TokenizerException;

  /** How to name this source in messages. */
  String describe();

  /** Bundled with the router for offline tests and the demo. */
  record Builtin(String name) implements TokenizerSource {
    @Override
    public ModelFiles load(boolean needTokenizer) throws TokenizerException {
      String base = "/io/infera/router/tokenize/" + name + "/";
      byte[] tok;
      try (InputStream gz = TokenizerSource.class.getResourceAsStream(base + "tokenizer.json.gz")) {
        if (gz == null) {
          throw new TokenizerException("no builtin tokenizer '" + name + "' (available: qwen3)");
        }
        try (InputStream in = new GZIPInputStream(gz)) {
          tok = in.readAllBytes();
        }
      } catch (IOException e) {
        throw new TokenizerException("cannot read builtin tokenizer " + name + ": " + e, e);
      }
      Map<String, Object> cfg;
      try (InputStream in =
          TokenizerSource.class.getResourceAsStream(base + "tokenizer_config.json")) {
        cfg =
            in == null
                ? Map.of()
                : config(new String(in.readAllBytes(), StandardCharsets.UTF_8), describe());
      } catch (IOException e) {
        throw new TokenizerException("cannot read builtin tokenizer config: " + e, e);
      }
      return new ModelFiles(tok, cfg, null, describe());
    }

    @Override
    public String describe() {
      return "builtin:" + name;
    }
  }

  /** A model directory. */
  record Directory(Path dir) implements TokenizerSource {
    @Override
    public ModelFiles load(boolean needTokenizer) throws TokenizerException {
      Path tok = dir.resolve("tokenizer.json");
      byte[] tokBytes = null;
      if (Files.isRegularFile(tok)) {
        tokBytes = read(tok);
      } else if (needTokenizer) {
        throw new TokenizerException(
            "no tokenizer.json in "
                + dir.toAbsolutePath()
                + " (a tokenizer directory needs tokenizer.json and usually tokenizer_config.json)");
      }
      Path cfgPath = dir.resolve("tokenizer_config.json");
      Map<String, Object> cfg =
          Files.isRegularFile(cfgPath)
              ? config(new String(read(cfgPath), StandardCharsets.UTF_8), cfgPath.toString())
              : Map.of();
      Path jinja = dir.resolve("chat_template.jinja");
      String template =
          Files.isRegularFile(jinja) ? new String(read(jinja), StandardCharsets.UTF_8) : null;
      return new ModelFiles(tokBytes, cfg, template, dir.toString());
    }

    @Override
    public String describe() {
      return dir.toString();
    }
  }

  /** A {@code tokenizer.json} file; its directory is searched for the config and template. */
  record JsonFile(Path file) implements TokenizerSource {
    @Override
    public ModelFiles load(boolean needTokenizer) throws TokenizerException {
      Path parent = file.toAbsolutePath().getParent();
      ModelFiles rest = new Directory(parent).load(false);
      return new ModelFiles(read(file), rest.config(), rest.chatTemplateFile(), file.toString());
    }

    @Override
    public String describe() {
      return file.toString();
    }
  }

  /**
   * A hub id in the local Hugging Face cache ({@code models--ORG--NAME/refs/REV} naming a {@code
   * snapshots/COMMIT} directory, or {@code snapshots/REV} itself when REV is a commit).
   *
   * @param revision a branch, tag or commit; null means {@code main}, falling back to the newest
   *     snapshot when the cache has no {@code refs/main}
   */
  record Hub(String id, Path cache, String revision) implements TokenizerSource {

    /** What the router says to do when the cache lacks the files (docs/operations.md). */
    static final String HINT =
        "mount a Hugging Face cache or use spec.router.tokenizer.download; see docs/operations.md";

    public Hub(String id, Path cache) {
      this(id, cache, null);
    }

    @Override
    public ModelFiles load(boolean needTokenizer) throws TokenizerException {
      Path snapshot = snapshot();
      if (needTokenizer && !Files.isRegularFile(snapshot.resolve("tokenizer.json"))) {
        throw missing(snapshot.resolve("tokenizer.json"), null);
      }
      ModelFiles files = new Directory(snapshot).load(needTokenizer);
      return new ModelFiles(
          files.tokenizerJson(),
          files.config(),
          files.chatTemplateFile(),
          id + " (" + snapshot + ")");
    }

    /** The snapshot directory the revision names; the exception names the file looked for. */
    Path snapshot() throws TokenizerException {
      Path repo = repo();
      Path snapshots = repo.resolve("snapshots");
      String rev = revision == null ? "main" : revision;
      Path ref = repo.resolve("refs").resolve(rev);
      try {
        if (Files.isRegularFile(ref)) {
          String commit =
              Files.size(ref) > 4096 ? "" : Files.readString(ref, StandardCharsets.UTF_8).strip();
          if (!COMMIT.matcher(commit).matches()) {
            // Never resolved as a path: a ref file's content is not trusted.
            throw missing(
                snapshots.resolve("<commit>").resolve("tokenizer.json"),
                ref + " does not name a commit");
          }
          Path snapshot = snapshots.resolve(commit);
          if (!Files.isDirectory(snapshot)) {
            throw missing(snapshot.resolve("tokenizer.json"), ref + " names '" + commit + "'");
          }
          return snapshot;
        }
        if (Files.isDirectory(snapshots.resolve(rev))) {
          return snapshots.resolve(rev);
        }
        if (revision == null && Files.isDirectory(snapshots)) {
          try (Stream<Path> s = Files.list(snapshots)) {
            Path newest =
                s.filter(Files::isDirectory)
                    .filter(p -> !p.getFileName().toString().startsWith("."))
                    .max(
                        (a, b) ->
                            Long.compare(a.toFile().lastModified(), b.toFile().lastModified()))
                    .orElse(null);
            if (newest != null) {
              return newest;
            }
          }
        }
      } catch (IOException e) {
        throw new TokenizerException("cannot read hub cache " + repo + ": " + e.getMessage(), e);
      }
      throw missing(snapshots.resolve(rev).resolve("tokenizer.json"), "no " + ref);
    }

    /** {@code <cache>/models--ORG--NAME}. */
    Path repo() {
      return cache.resolve(HubNames.cacheDirName(id));
    }

    private TokenizerException missing(Path file, String why) {
      return new TokenizerException(
          file + " not found (" + (why == null ? "" : why + "; ") + HINT + ")");
    }

    @Override
    public String describe() {
      return revision == null ? id : id + "@" + revision;
    }
  }

  /** What a {@code refs/} file may name: one path segment, never {@code .} or {@code ..}. */
  Pattern COMMIT = Pattern.compile("[A-Za-z0-9][\\w.-]{0,127}");

  Pattern HUB_ID = Pattern.compile("[A-Za-z0-9][\\w.-]*/[\\w.-]+");

  /**
   * Interprets {@code --tokenizer}: {@code builtin:NAME}, an existing directory or file, else a hub
   * id.
   *
   * @param env environment (for {@code HF_HUB_CACHE}, {@code HF_HOME}, {@code HOME})
   */
  static TokenizerSource resolve(String spec, Map<String, String> env) throws TokenizerException {
    return resolve(spec, null, env);
  }

  /**
   * As {@link #resolve(String, Map)}, a hub id at {@code revision} (null: {@code main}).
   *
   * @param revision a branch, tag or commit of a hub id; ignored for the other sources
   */
  static TokenizerSource resolve(String spec, String revision, Map<String, String> env)
      throws TokenizerException {
    if (spec == null || spec.isBlank()) {
      throw new TokenizerException("no tokenizer given");
    }
    if (spec.startsWith("builtin:")) {
      return new Builtin(spec.substring("builtin:".length()));
    }
    Path p = Path.of(spec);
    if (Files.isDirectory(p)) {
      return new Directory(p);
    }
    if (Files.isRegularFile(p)) {
      return new JsonFile(p);
    }
    if (HUB_ID.matcher(spec).matches() && !spec.startsWith(".") && !spec.startsWith("/")) {
      return new Hub(spec, hubCache(env), revision);
    }
    throw new TokenizerException(
        "no tokenizer at '"
            + spec
            + "': not a directory, not a file, and not a hub id (org/name) in the local cache");
  }

  static Path hubCache(Map<String, String> env) {
    String cache = env.get("HF_HUB_CACHE");
    if (cache == null) {
      cache = env.get("HUGGINGFACE_HUB_CACHE");
    }
    if (cache != null && !cache.isBlank()) {
      return Path.of(cache);
    }
    String home = env.get("HF_HOME");
    if (home != null && !home.isBlank()) {
      return Path.of(home, "hub");
    }
    return Path.of(
        env.getOrDefault("HOME", System.getProperty("user.home")), ".cache", "huggingface", "hub");
  }

  private static byte[] read(Path p) throws TokenizerException {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new TokenizerException("cannot read " + p + ": " + e.getMessage(), e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> config(String text, String where) throws TokenizerException {
    try {
      Object v = Json.parse(text);
      if (!(v instanceof Map)) {
        throw new TokenizerException(where + ": tokenizer_config.json is not a JSON object");
      }
      return (Map<String, Object>) v;
    } catch (JsonException e) {
      throw new TokenizerException(where + ": invalid tokenizer_config.json: " + e.getMessage());
    }
  }
}
