package io.infera.operator.status;

import java.util.Objects;

/** The outcome of asking the routers for their view: known, or unknown with a reason. */
public sealed interface RouterFetch permits RouterFetch.Known, RouterFetch.Unknown {

  /** The routers answered with a well-formed status document. */
  record Known(RouterView view) implements RouterFetch {
    public Known {
      Objects.requireNonNull(view, "view");
    }
  }

  /**
   * The view is unknown: no router replica is ready, the request failed or timed out, or the answer
   * was malformed.
   *
   * @param reason one line for a person, stable for a given cause (it ends up in a condition)
   */
  record Unknown(String reason) implements RouterFetch {
    public Unknown {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
