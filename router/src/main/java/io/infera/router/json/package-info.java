/**
 * JSON in and out for request bodies, configs and CLI files, as plain Java values that keep what
 * chat templates can see: objects keep key order, integers stay integers (Long, or BigInteger when
 * large) and numbers with a fraction or exponent are Doubles — as Python's {@code json} module.
 */
package io.infera.router.json;
