package io.infera.router.events.zmq;

/** Where an engine's data-parallel ranks publish, derived from rank 0's endpoints. */
public final class ZmqEndpoints {

  private ZmqEndpoints() {}

  /**
   * The endpoint of data-parallel rank {@code rank}, derived from rank 0's exactly like vLLM's
   * {@code ZmqEventPublisher.offset_endpoint_port}: TCP port + rank, inproc name + {@code
   * _dp<rank>}.
   *
   * @throws IllegalArgumentException for an endpoint whose port cannot be offset
   */
  public static String offsetEndpointPort(String endpoint, int rank) {
    if (endpoint == null) {
      return null;
    }
    if (endpoint.contains("inproc")) {
      return endpoint + "_dp" + rank;
    }
    int colon = endpoint.lastIndexOf(':');
    if (endpoint.contains("tcp") && colon > endpoint.indexOf("://") + 2) {
      int port;
      try {
        port = Integer.parseInt(endpoint.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("endpoint " + endpoint + " has no numeric port", e);
      }
      return endpoint.substring(0, colon + 1) + (port + rank);
    }
    if (rank == 0) {
      return endpoint;
    }
    throw new IllegalArgumentException(
        "cannot derive the rank " + rank + " endpoint from " + endpoint + " (tcp or inproc only)");
  }
}
