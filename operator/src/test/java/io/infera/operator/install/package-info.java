/**
 * install: what a platform team applies — the Helm chart, the kustomize bases, the RBAC, the
 * samples, the Argo CD health check and the Grafana dashboard — rendered with the real helm and
 * kubectl ({@link io.infera.operator.install.InstallTools}) and checked against the operator's code
 * and CRD.
 */
package io.infera.operator.install;
