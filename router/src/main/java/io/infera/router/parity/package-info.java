/**
 * Render parity: whether each worker renders and tokenizes chats as the router does. A canonical
 * conversation set is tokenized by the router and by each worker's {@code /tokenize}; the token ids
 * are compared ({@link io.infera.router.parity.ParityCheck}), probes are scheduled by a pure
 * decision ({@link io.infera.router.parity.ParitySchedule}) and the verdicts kept in one table
 * ({@link io.infera.router.parity.RenderParity}) that the request path, the admin status and the
 * metrics read. Plain Java: the HTTP side lives in {@code http.RenderParityProber}.
 */
package io.infera.router.parity;
