package io.infera.router.tokenize;

import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A Hugging Face {@code tokenizer.json} run by DJL's native tokenizers library, truncation and
 * padding off. Thread-safe; close it to free the native handle.
 */
public final class HfTokenizer implements AutoCloseable {

  /**
   * One entry of {@code added_tokens}.
   *
   * @param special a special token (rendered templates contain these)
   */
  public record AddedToken(
      int id,
      String content,
      boolean special,
      boolean lstrip,
      boolean rstrip,
      boolean singleWord,
      boolean normalized) {

    /** True when text splits cleanly at this token: nothing around it is absorbed. */
    public boolean isCleanBoundary() {
      return !lstrip && !rstrip && !singleWord && !normalized && !content.isEmpty();
    }
  }

  /**
   * The longest text one native call gets by default. Measured (docs/operations.md, "Tokenization
   * budget"): one call takes up to about 300 bytes of native memory per character (CJK, digits), so
   * a piece of this size costs under 80 MB even when several run at once in a 1 GiB router.
   */
  public static final int DEFAULT_MAX_PIECE_CHARS = 1 << 18;

  /** The size texts are cut to when they may be cut (pieces end at the last boundary before). */
  static final int CHUNK_CHARS = 1 << 16;

  private final HuggingFaceTokenizer tokenizer;
  private final long handle;
  private final List<AddedToken> addedTokens;
  private final String origin;
  private final boolean chunksPlain;
  private final boolean chunksWithSpecial;
  private final boolean cutsAtPunctuation;

  private HfTokenizer(HuggingFaceTokenizer tokenizer, List<AddedToken> added, String origin) {
    this.tokenizer = tokenizer;
    this.handle = tokenizer.getHandle();
    this.addedTokens = List.copyOf(added);
    this.origin = origin;
    boolean cuttable = ChunkBoundaries.addedTokensAllowCuts(addedTokens);
    this.chunksPlain = cuttable && ChunkBoundaries.verify(this::encodeOnce, false);
    this.chunksWithSpecial = cuttable && ChunkBoundaries.verify(this::encodeOnce, true);
    this.cutsAtPunctuation =
        chunksPlain
            && chunksWithSpecial
            && ChunkBoundaries.addedTokensAllowPunctuationCuts(addedTokens)
            && ChunkBoundaries.verify(this::encodeOnce, false, true)
            && ChunkBoundaries.verify(this::encodeOnce, true, true);
  }

  /** Builds the tokenizer from {@code tokenizer.json} bytes. */
  public static HfTokenizer load(byte[] tokenizerJson, String origin) throws TokenizerException {
    if (tokenizerJson == null) {
      throw new TokenizerException(origin + ": no tokenizer.json");
    }
    List<AddedToken> added = addedTokens(tokenizerJson, origin);
    try {
      HuggingFaceTokenizer t =
          HuggingFaceTokenizer.newInstance(
              new ByteArrayInputStream(tokenizerJson),
              Map.of("truncation", "false", "padding", "false", "addSpecialTokens", "true"));
      return new HfTokenizer(t, added, origin);
    } catch (IOException | RuntimeException e) {
      throw new TokenizerException(origin + ": cannot load tokenizer.json: " + e.getMessage(), e);
    } catch (UnsatisfiedLinkError e) {
      throw new TokenizerException(
          "cannot load DJL's native tokenizers library (" + e.getMessage() + ")", e);
    }
  }

  /**
   * Encodes text, at most {@link #DEFAULT_MAX_PIECE_CHARS} characters per native call.
   *
   * @param addSpecialTokens true for completion prompts (BOS etc. as the post-processor says),
   *     false for rendered chat prompts
   * @throws TokenizeBudgetException when the text has a piece the native tokenizer must not see
   */
  public int[] encode(String text, boolean addSpecialTokens) {
    return encode(text, addSpecialTokens, DEFAULT_MAX_PIECE_CHARS);
  }

  /**
   * Encodes text in pieces cut only at {@link ChunkBoundaries verified} pre-token boundaries, so
   * the ids are those of one call while the native tokenizer's memory stays bounded by the piece.
   *
   * @param maxPieceChars the longest text one native call may get; a text that cannot be cut into
   *     such pieces (one giant word, a long whitespace or CJK run) is refused, never encoded
   * @throws TokenizeBudgetException when the text cannot be cut into pieces of that size
   */
  public int[] encode(String text, boolean addSpecialTokens, int maxPieceChars) {
    return encode(text, addSpecialTokens, maxPieceChars, CHUNK_CHARS);
  }

  /** As above, cutting texts longer than {@code chunkChars} (tests use small ones). */
  int[] encode(String text, boolean addSpecialTokens, int maxPieceChars, int chunkChars) {
    String s = wellFormed(text);
    if (s.length() <= Math.min(chunkChars, maxPieceChars)) {
      return encodeOnce(s, addSpecialTokens);
    }
    boolean cut = addSpecialTokens ? chunksWithSpecial : chunksPlain;
    if (!cut) {
      if (s.length() > maxPieceChars) {
        throw new TokenizeBudgetException(
            TokenizeBudgetException.UNSPLITTABLE,
            s.length() + " chars and this tokenizer cannot be cut at pre-token boundaries");
      }
      return encodeOnce(s, addSpecialTokens);
    }
    int[] cuts =
        ChunkBoundaries.cuts(
            s, Math.min(chunkChars, maxPieceChars), maxPieceChars, cutsAtPunctuation);
    int[] out = new int[Math.max(16, s.length() / 2)];
    int n = 0;
    int from = 0;
    for (int i = 0; i <= cuts.length; i++) {
      int to = i < cuts.length ? cuts[i] : s.length();
      int[] ids = encodeOnce(s.substring(from, to), addSpecialTokens && from == 0);
      if (n + ids.length > out.length) {
        out = Arrays.copyOf(out, Math.max(n + ids.length, out.length + (out.length >> 1)));
      }
      System.arraycopy(ids, 0, out, n, ids.length);
      n += ids.length;
      from = to;
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * One native call that copies only the ids back: DJL's {@code Encoding} also copies every token's
   * string, word id, masks and character span (most of the heap a long prompt takes).
   */
  private int[] encodeOnce(String text, boolean addSpecialTokens) {
    long enc = TokenizersLibrary.LIB.encode(handle, text, addSpecialTokens);
    try {
      long[] ids = TokenizersLibrary.LIB.getTokenIds(enc);
      int[] out = new int[ids.length];
      for (int i = 0; i < ids.length; i++) {
        out[i] = (int) ids[i];
      }
      return out;
    } finally {
      TokenizersLibrary.LIB.deleteEncoding(enc);
    }
  }

  /** One native call on the whole text, whatever its size (tests compare cut encodings to it). */
  int[] encodeWhole(String text, boolean addSpecialTokens) {
    return encodeOnce(wellFormed(text), addSpecialTokens);
  }

  /**
   * True when texts longer than one piece are cut (plain, with special tokens): checked at load.
   */
  public boolean cutsPlain() {
    return chunksPlain;
  }

  public boolean cutsWithSpecial() {
    return chunksWithSpecial;
  }

  /** True when texts are also cut at punctuation after a letter (CJK text): checked at load. */
  public boolean cutsAtPunctuation() {
    return cutsAtPunctuation;
  }

  /**
   * {@code text} with every unpaired surrogate replaced by U+FFFD. The native tokenizer receives
   * Java's modified UTF-8: one unpaired surrogate (JSON allows {@code "\\ud83d"} alone) makes the
   * whole string fail to decode, and its lossy fallback turns every emoji of the text into
   * replacement characters — so the ids would depend on text far from the bad char.
   */
  static String wellFormed(String text) {
    int n = text.length();
    int i = 0;
    while (i < n) {
      char c = text.charAt(i);
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < n
            && Character.isLowSurrogate(text.charAt(i + 1))) {
          i += 2;
          continue;
        }
        break;
      }
      i++;
    }
    if (i == n) {
      return text;
    }
    StringBuilder out = new StringBuilder(n).append(text, 0, i);
    while (i < n) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        out.append(c).append(text.charAt(i + 1));
        i += 2;
      } else {
        out.append(Character.isSurrogate(c) ? '\uFFFD' : c);
        i++;
      }
    }
    return out.toString();
  }

  /** Decodes ids to text (special tokens kept), e.g. for simulated engines' output. */
  public String decode(int[] ids) {
    long[] l = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      l[i] = ids[i];
    }
    return tokenizer.decode(l, false);
  }

  public List<AddedToken> addedTokens() {
    return addedTokens;
  }

  public String origin() {
    return origin;
  }

  @Override
  public void close() {
    tokenizer.close();
  }

  /** Reads only {@code added_tokens} from the (large) tokenizer.json. */
  private static List<AddedToken> addedTokens(byte[] json, String origin)
      throws TokenizerException {
    List<AddedToken> out = new ArrayList<>();
    try (JsonParser p = new JsonFactory().createParser(json)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new TokenizerException(origin + ": tokenizer.json is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if ("added_tokens".equals(name) && v == JsonToken.START_ARRAY) {
          while (p.nextToken() == JsonToken.START_OBJECT) {
            int id = -1;
            String content = "";
            boolean special = false;
            boolean lstrip = false;
            boolean rstrip = false;
            boolean single = false;
            boolean normalized = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
              String f = p.currentName();
              JsonToken fv = p.nextToken();
              switch (f) {
                case "id" -> id = p.getIntValue();
                case "content" -> content = p.getText();
                case "special" -> special = fv == JsonToken.VALUE_TRUE;
                case "lstrip" -> lstrip = fv == JsonToken.VALUE_TRUE;
                case "rstrip" -> rstrip = fv == JsonToken.VALUE_TRUE;
                case "single_word" -> single = fv == JsonToken.VALUE_TRUE;
                case "normalized" -> normalized = fv == JsonToken.VALUE_TRUE;
                default -> p.skipChildren();
              }
            }
            out.add(new AddedToken(id, content, special, lstrip, rstrip, single, normalized));
          }
        } else {
          p.skipChildren();
        }
      }
    } catch (IOException e) {
      throw new TokenizerException(origin + ": invalid tokenizer.json: " + e.getMessage(), e);
    }
    return out;
  }
}
