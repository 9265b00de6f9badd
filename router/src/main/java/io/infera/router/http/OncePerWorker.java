package io.infera.router.http;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which workers a warning has already been logged for, so a misconfigured worker is named once
 * rather than per request. Bounded: worker ids come and go with pods, so past {@link #MAX} ids the
 * set starts over (a long-lived worker may then be warned about once more).
 */
final class OncePerWorker {

  static final int MAX = 4096;

  private final Set<String> seen = ConcurrentHashMap.newKeySet();

  /** True the first time {@code worker} is seen (since the last start-over). */
  boolean first(String worker) {
    if (seen.contains(worker)) {
      return false;
    }
    if (seen.size() >= MAX) {
      seen.clear();
    }
    return seen.add(worker);
  }
}
