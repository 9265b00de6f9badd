package io.infera.router.tokenize;

import java.util.regex.Pattern;

/** The shapes of Hugging Face hub names the router accepts: a model id and a revision. */
public final class HubNames {

  /** {@code org/name}: what {@code tokenizer.hub} and {@code fetch-tokenizer --model} take. */
  public static final Pattern MODEL_ID =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}");

  /**
   * A branch, tag or commit: segments of letters, digits, {@code . _ -} separated by {@code /},
   * none starting with a dot (so never {@code ..}), at most 128 characters.
   */
  public static final Pattern REVISION =
      Pattern.compile("(?=.{1,128}$)[A-Za-z0-9][\\w.-]*(/[A-Za-z0-9][\\w.-]*)*");

  private HubNames() {}

  /** {@code models--ORG--NAME}: the model's directory in a hub cache. */
  public static String cacheDirName(String modelId) {
    return "models--" + modelId.replace("/", "--");
  }
}
