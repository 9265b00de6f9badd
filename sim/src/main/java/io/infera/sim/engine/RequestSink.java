package io.infera.sim.engine;

import io.infera.sim.sched.EngineEvent;
import java.util.List;

/**
 * Where a rank's engine loop delivers one request's results. Both methods are called on the loop
 * thread and must return at once (hand the work to the request's own thread or event loop).
 */
interface RequestSink {

  /** One step's events of this request, in order; the last call carries its {@code Finished}. */
  void events(List<EngineEvent> events);

  /** Why a request got no (more) results. */
  enum Rejection {
    /** The request can never fit in the KV cache (a client error). */
    DOES_NOT_FIT,
    /** The engine is shutting down. */
    SHUTTING_DOWN
  }

  /** The request will get no (more) events; nothing else follows. */
  void rejected(Rejection reason, String message);
}
