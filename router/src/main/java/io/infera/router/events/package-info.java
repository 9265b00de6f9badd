/**
 * KV events from engines into the index: an {@link io.infera.router.events.EventTransport} ({@code
 * events.zmq}, {@code events.nats}, {@code events.inproc}) hands each message or snapshot, as a
 * sealed {@link io.infera.router.events.Delivery}, to an {@link io.infera.router.events.EventSink};
 * {@link io.infera.router.events.EventIngest} decodes and applies them on the index's single writer
 * thread, never on an event loop. Transports report their own status and meters; nothing here
 * depends on the admin, routing, runtime or HTTP layers.
 */
package io.infera.router.events;
