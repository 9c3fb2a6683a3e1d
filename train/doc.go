// Package train turns self-play into a stronger network and measures it.
//
// This package holds the parts of the AlphaZero loop that need no network:
//
//   - [Config]: the whole run as YAML (configs/default.yaml), read strictly
//     by [Load] and [Parse] with errors that name the key path and line.
//   - [Replay]: the sliding window of training positions, sampled in
//     batches with optional symmetry augmentation and saved with
//     [Replay.Encode] / [DecodeReplay].
//   - every file the package writes goes through [model.WriteFileAtomic].
//   - [Metrics]: one JSON line per iteration in metrics.jsonl
//     ([AppendMetrics], [ReadMetrics], [TruncateMetrics]) and PNG plots of
//     it ([PlotRun]).
//   - [Progress]: a progress bar on a terminal, periodic lines elsewhere.
//   - [PlayMatch] and [RoundRobin]: games between players built from
//     factories, in parallel and reproducibly, that survive players which
//     cheat, fail or panic; [FitElo] rates the players from the results.
package train
