/**
 * Workloads: deterministic, seeded lists of sessions (conversations of one or more turns) written
 * in a fixed 2,000-word {@link io.infera.sim.workload.Vocabulary} where token id = 1000 + word
 * index and text = the words joined by spaces, so tokens and text always describe the same content.
 * Generators build the pieces (system prompt, user turns, answer lengths, think times, start
 * times); the driver splices in the engine's real answers.
 */
package io.infera.sim.workload;
