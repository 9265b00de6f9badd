/**
 * The router's configuration: the RouterConfig document (docs/contracts.md) as typed, validated
 * records. Sources are layered flag &gt; environment &gt; file &gt; default; an invalid value stops
 * start-up with a message naming its key.
 */
package io.infera.router.config;
