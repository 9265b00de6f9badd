package io.infera.router.parity;

import java.util.List;

/**
 * One worker's last probe verdict.
 *
 * @param divergence what differs; null unless {@link ParityStatus#DIVERGED}
 * @param variant a fingerprint of the worker's answers to the whole set: diverging workers with
 *     equal fingerprints render alike (one template variant), so one of them can tokenize a request
 *     for all; 0 unless diverged
 * @param cases the compared cases (empty unless the worker answered them all)
 * @param detail a short human-readable reason (the first differing case, the failure)
 * @param checkedAtMillis wall-clock time of the verdict, 0 when pending
 */
public record WorkerParity(
    ParityStatus status,
    Divergence divergence,
    long variant,
    List<CaseResult> cases,
    String detail,
    long checkedAtMillis) {

  public WorkerParity {
    cases = List.copyOf(cases);
  }

  public static final WorkerParity PENDING =
      new WorkerParity(ParityStatus.PENDING, null, 0, List.of(), "not probed yet", 0);

  /** Whether the router must not use its own tokens for a chat ({@code chat}) or text request. */
  public boolean distrusts(boolean chat) {
    return status == ParityStatus.DIVERGED && (chat || divergence == Divergence.TOKENIZER);
  }
}
