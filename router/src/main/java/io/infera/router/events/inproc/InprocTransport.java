package io.infera.router.events.inproc;

import io.infera.router.discovery.WorkerInfo;
import io.infera.router.events.EventSink;
import io.infera.router.events.EventTransport;
import io.infera.router.events.TransportStatus;
import java.util.List;

/** {@code inproc}: KV events from simulated engines in the same JVM, via an {@link InprocBus}. */
public final class InprocTransport implements EventTransport {

  private final InprocBus bus;
  private volatile EventSink sink;

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
  public TransportStatus status() {
    return TransportStatus.of(name(), warm());
  }

  @Override
  public void close() {
    if (sink != null) {
      bus.unsubscribe(sink);
    }
  }
}
