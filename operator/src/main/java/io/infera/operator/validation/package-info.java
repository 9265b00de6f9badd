/**
 * validation: the Java twin of the CRD's schema and CEL rules, so that the operator refuses what
 * the API server would (fabric8's mock server and {@code render} run no CEL), with messages naming
 * the field. Pure functions over the resource; no client.
 */
package io.infera.operator.validation;
