/**
 * What operators read: the JSON documents of the admin endpoints (models, workers, status, cache
 * view, explain), built from the router's state without touching HTTP. Transports appear only
 * through {@code EventTransport}'s own status; the meters are each component's own.
 */
package io.infera.router.admin;
