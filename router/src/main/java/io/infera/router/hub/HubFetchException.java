package io.infera.router.hub;

/** A fetch that failed; the message is for a person: which file, which URL, what to do. */
public final class HubFetchException extends Exception {
  public HubFetchException(String message) {
    super(message, null, false, false);
  }
}
