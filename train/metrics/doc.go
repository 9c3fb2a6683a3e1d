// Package metrics is a training run's record of itself: [Iteration] is
// what one iteration measured, one JSON line of the run's metrics.jsonl
// ([File]), which [Append] extends crash-safely, [Read] reads back and
// [Truncate] cuts to a resumed checkpoint and [Elapsed] reads as training
// time per iteration; [Ratings] fits the evaluations' rating games on one
// Elo scale, the anchor at 0; [Plot] and [PlotRun] draw the
// log as PNG charts (loss.png, selfplay.png, eval.png).
//
// Package train writes the log; the plot and serve commands and package
// train/web read it. The JSON format is a contract: logs of older runs
// keep reading.
package metrics
