/**
 * ITs against a real Kubernetes API server ({@link io.infera.operator.testing.KubeControlPlane}):
 * what fabric8's mock server cannot check — structural schemas, CEL, server-side apply and its
 * managed fields, the status subresource, RBAC, leases and garbage collection.
 */
package io.infera.operator.cluster;
