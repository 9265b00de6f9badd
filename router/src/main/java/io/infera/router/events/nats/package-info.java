/**
 * {@code nats}: the router's consumer of the relays' JetStream stream and snapshot bucket
 * (docs/contracts.md, "NATS event plane"), and the NATS side of cross-replica load sharing. The
 * decisions are pure and unit-tested ({@link io.infera.router.events.nats.NatsCursor}, {@link
 * io.infera.router.events.nats.SeedRules}); every NATS call happens on the transport's own thread
 * or jnats's.
 */
package io.infera.router.events.nats;
