/**
 * render: {@code infera-operator render}, the children of an {@code InferaDeployment} file printed
 * without a cluster. Parsing is strict (unknown fields, duplicate keys and wrong scalar types are
 * refused, as the API server would) and every refusal is one line naming the field.
 */
package io.infera.operator.render;
