/**
 * The {@code infera.io/v1alpha1} API: the {@code InferaDeployment} custom resource as plain POJOs.
 *
 * <p>Annotations carry the documentation, defaults and validation into the generated CRD ({@code
 * crds/}). Every default is both a {@code @Default} and the field's initializer, so an object read
 * from a file (no API server defaulting) means the same as one read from the cluster; {@link
 * io.infera.operator.validation.SpecValidator} re-checks every schema and CEL rule in Java.
 */
package io.infera.operator.api.v1alpha1;
