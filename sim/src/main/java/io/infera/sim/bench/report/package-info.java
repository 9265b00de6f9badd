/**
 * Benchmark results in, reports out: {@link io.infera.sim.bench.report.RequestResult} per request,
 * {@link io.infera.sim.bench.report.Summaries} pools seeds into one {@link
 * io.infera.sim.bench.report.ArmSummary} per routing policy, {@link
 * io.infera.sim.bench.report.ReportWriter} writes JSON, Markdown, CSV and PNG charts. Pure
 * functions of their inputs, no clock; errors and rejections are always reported beside the
 * latencies.
 */
package io.infera.sim.bench.report;
