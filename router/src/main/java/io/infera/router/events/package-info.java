/**
 * KV-event transports into the index: {@code zmq} (one SUB per worker rank, replay on gaps), {@code
 * inproc} (in-JVM, for tests and the demo) and {@code nats} ({@link
 * io.infera.router.events.NatsTransport}: snapshots from the KV bucket, then the JetStream stream
 * the relays of {@link io.infera.router.relay} publish to). Every transport hands raw ZMQ-shaped
 * frames to an {@link io.infera.router.events.EventSink}; {@link
 * io.infera.router.events.EventIngest} decodes and applies them on the index's single writer
 * thread, never on an event loop.
 */
package io.infera.router.events;
