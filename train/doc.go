// Package train turns self-play into a stronger network and measures it.
//
// [Run] is the loop: self-play through one batching server on the current
// network, a replay window, training steps, evaluation against baselines,
// metrics, plots and atomic checkpoints that a run resumes from. Around it:
//
//   - [Config]: the whole run as YAML (configs/default.yaml), read strictly
//     by [Load] and [Parse] with errors that name the key path and line;
//     a run's own saved copy is read by [LoadSaved] and [ParseSaved].
//   - [LoadNetwork], [LoadPlayer], [Export] and [Models]: trained networks
//     from checkpoints, run directories and exported player files, as
//     players for every command.
//   - [Replay]: the sliding window of training positions, sampled in
//     batches with optional symmetry augmentation and saved with
//     [Replay.Encode] / [DecodeReplay].
//   - every file the package writes goes through [codec.WriteFileAtomic].
//   - [Metrics]: one JSON line per iteration in metrics.jsonl
//     ([AppendMetrics], [ReadMetrics], [TruncateMetrics]) and PNG plots of
//     it ([PlotRun]).
//   - [Progress]: a progress bar on a terminal, periodic lines elsewhere.
//   - [PlayMatch] and [RoundRobin]: games between players built from
//     factories, in parallel and reproducibly, that survive players which
//     cheat, fail or panic; [FitElo] rates the players from the results.
package train
