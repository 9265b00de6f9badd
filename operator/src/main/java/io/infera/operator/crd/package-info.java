/**
 * crd: build-time finishing of the CRD that fabric8's generator writes from {@code api.v1alpha1}
 * (run by the build after the generator; not used at run time).
 */
package io.infera.operator.crd;
