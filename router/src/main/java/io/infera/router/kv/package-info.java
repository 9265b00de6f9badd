/**
 * The KV-cache core: block hashing, the KV-event model and its decoder, and the prefix index.
 *
 * <p>Identifiers used throughout: a <em>router hash</em> ({@code long blockHash}) is the chained
 * XXH3-64 of docs/contracts.md ("Block hashing") computed by {@link
 * io.infera.router.kv.BlockHasher}, unsigned, printed as 16-digit hex; an <em>engine hash</em> is
 * the opaque hash an engine puts in its KV events and is only ever used as a key to find the router
 * hash it was stored under. A {@link io.infera.router.kv.WorkerId} names one engine pod; a {@link
 * io.infera.router.kv.SourceId} is one (worker, data-parallel rank) event source with its own cache
 * view. Each source has its own block size (learned from its events; the configured page size until
 * then): its router hashes are chained at that size, and match hits are reported in blocks of the
 * page size.
 *
 * <p>Invariants: the index has a single writer; {@code match} never mutates and never blocks on the
 * writer; decoding never throws anything but {@link io.infera.router.kv.EventDecodeException}.
 */
package io.infera.router.kv;
