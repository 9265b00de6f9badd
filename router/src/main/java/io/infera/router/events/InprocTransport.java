package io.infera.router.events;

import io.infera.router.discovery.WorkerInfo;
import java.util.List;

/** {@code inproc}: KV events from simulated engines in the same JVM, via an {@link InprocBus}. */
public final class InprocTransport implements EventTransport {

  private final InprocBus bus;
  private EventSink sink;

  public InprocTransport(InprocBus bus) {
    this.bus = bus;
  }

  @Override
  public void start(EventSink sink) {
    this.sink = sink;
    bus.subscribe(sink);
  }

  @Override
  public void workersChanged(List<WorkerInfo> workers) {
    // Every worker on the bus is heard; the ingest drops workers discovery does not know.
  }

  @Override
  public boolean warm() {
    return sink != null;
  }

  @Override
  public String name() {
    return "inproc";
  }

  @Override
  public void close() {
    if (sink != null) {
      bus.unsubscribe(sink);
    }
  }
}
