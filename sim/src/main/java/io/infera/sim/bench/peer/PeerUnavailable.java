package io.infera.sim.bench.peer;

/** A peer could not be installed or started here; the message is what to tell the user. */
public final class PeerUnavailable extends Exception {

  public PeerUnavailable(String message) {
    super(message);
  }
}
