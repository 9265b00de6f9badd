/**
 * hub: fetches a model's tokenizer files from a Hugging Face hub (or a mirror) into the standard
 * hub cache layout the router reads ({@code models--ORG--NAME/snapshots/COMMIT}, {@code refs/REV}).
 *
 * <p>Invariants: every download is bounded in bytes and time; a snapshot directory appears whole or
 * not at all (written aside, then renamed); the token is sent only to the hub's own origin, never
 * to a host it redirects to; failures are one-line messages, never stack traces.
 */
package io.infera.router.hub;
