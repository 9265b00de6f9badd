/**
 * The NATS wire contract shared by the relay and the router (docs/contracts.md, "NATS event
 * plane"): subjects, headers, snapshot keys, stream and bucket setup, the relay's protocol and the
 * load-sharing messages. One definition of each name; nothing here holds a connection or state.
 */
package io.infera.router.nats;
