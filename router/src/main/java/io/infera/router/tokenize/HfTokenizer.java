package io.infera.router.tokenize;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
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

  private final HuggingFaceTokenizer tokenizer;
  private final List<AddedToken> addedTokens;
  private final String origin;

  private HfTokenizer(HuggingFaceTokenizer tokenizer, List<AddedToken> added, String origin) {
    this.tokenizer = tokenizer;
    this.addedTokens = List.copyOf(added);
    this.origin = origin;
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
   * Encodes text.
   *
   * @param addSpecialTokens true for completion prompts (BOS etc. as the post-processor says),
   *     false for rendered chat prompts
   */
  public int[] encode(String text, boolean addSpecialTokens) {
    Encoding e = tokenizer.encode(wellFormed(text), addSpecialTokens, false);
    long[] ids = e.getIds();
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = (int) ids[i];
    }
    return out;
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
