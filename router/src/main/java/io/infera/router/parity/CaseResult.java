package io.infera.router.parity;

/**
 * One probe case compared: the router's token ids against the worker's.
 *
 * @param name the {@link ProbeCase#name()}
 * @param routerTokens how many tokens the router produced
 * @param engineTokens how many the worker's {@code /tokenize} answered
 * @param firstDifference index of the first differing token, or -1 when the two lists are equal
 */
public record CaseResult(String name, int routerTokens, int engineTokens, int firstDifference) {

  public boolean matches() {
    return firstDifference < 0;
  }

  /** For the status: {@code "tool_call: differs at token 12 (router 40, engine 44)"}. */
  public String describe() {
    return matches()
        ? name + ": equal (" + routerTokens + " tokens)"
        : name
            + ": differs at token "
            + firstDifference
            + " (router "
            + routerTokens
            + ", engine "
            + engineTokens
            + ")";
  }
}
