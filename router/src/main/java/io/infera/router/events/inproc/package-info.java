/**
 * {@code inproc}: KV events between simulated engines and routers in one JVM (tests, the demo),
 * through named {@link io.infera.router.events.inproc.InprocBus}es; no sockets, no sequence gaps.
 */
package io.infera.router.events.inproc;
