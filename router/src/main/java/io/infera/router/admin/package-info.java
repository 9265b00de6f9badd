/**
 * What operators see: Prometheus metrics ({@link io.infera.router.admin.RouterMetrics}) and the
 * JSON documents of the admin endpoints (status, workers, cache view, explain), built from the
 * router's state without touching HTTP.
 */
package io.infera.router.admin;
