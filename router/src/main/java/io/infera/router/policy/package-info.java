/**
 * Worker selection: the cost model, the policies and in-flight load accounting.
 *
 * <p>Selection ({@link io.infera.router.policy.RoutingPolicy#select}) is pure and side-effect free:
 * it reads a match result and a load snapshot and returns a decision with every candidate's score.
 * Booking happens after the pick, in the request path, through {@link
 * io.infera.router.policy.LoadTracker#book}, whose {@link io.infera.router.policy.Booking} is
 * released exactly once whichever way the request ends. Decode input demand follows the same rule:
 * {@link io.infera.router.policy.DemandSelection} is pure, and {@link
 * io.infera.router.policy.DecodeDemand} books a reservation after it that is released exactly once.
 * released exactly once whichever way the request ends. {@link
 * io.infera.router.policy.SessionBindings} is the bounded (LRU + TTL) session → worker table that
 * session affinity consults before selection; it keeps key hashes only, never key text.
 */
package io.infera.router.policy;
