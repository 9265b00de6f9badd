/**
 * Engine-reported load: a per-worker scraper of the engines' Prometheus {@code /metrics}, a bounded
 * parser of the text format that reads only the series routing needs, and the table of the latest
 * per-worker snapshot the picks read (docs/routing.md, "Engine-reported load").
 *
 * <p>Invariants: a scrape never blocks a request thread or the event loop (asynchronous HTTP,
 * bounded body, bounded time); a failed or stale snapshot is "unknown", never zero; selection stays
 * pure: it reads an immutable term computed by {@link io.infera.router.policy.EngineTerm}.
 */
package io.infera.router.engineload;
