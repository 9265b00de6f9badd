/**
 * The request path's decisions, independent of HTTP: the fleet of workers and their routability
 * (discovery readiness, health, circuit breaker), and {@link
 * io.infera.router.routing.RequestRouter}, which turns a request's block hashes into a booked pick
 * (match → session binding → score → select → book; {@link
 * io.infera.router.routing.SessionAffinity} decides whether a bound session's worker takes it).
 * Failures are values of the sealed {@link io.infera.router.routing.RoutingFailure}, rendered to
 * HTTP in one place.
 */
package io.infera.router.routing;
