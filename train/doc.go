// Package train turns self-play into a stronger network.
//
// [Run] is the loop: self-play on the current network, its games'
// searches batched in lanes (mcts/stepped.Drive), a replay window, training steps under a learning-rate schedule
// that follows the run's time limit or iterations, evaluation against
// baselines and, on one Elo scale, against the anchor and earlier networks
// of the run (with package train/arena, rated by package train/elo),
// metrics, plots and atomic checkpoints that a run resumes from. Around it:
//
//   - [LoadPlayer], [Export] and [Models]: trained networks from
//     checkpoints, run directories, network snapshots and exported player
//     files, as players for every command, all read by one function with
//     one precedence of search settings (see [Models]). They live here,
//     not in the evaluation packages, because they read the checkpoint and
//     its saved config.
//   - [LadderRun]: a run as package train/ladder sees it, whose
//     snapshots [Models] serves.
//
// The run's configuration (the whole run as YAML, read strictly, and its
// learning-rate schedule) is package train/runconfig; its checkpoint file
// is package train/checkpoint; the description of its files ([Inspect])
// is package train/inspect. The replay window of training positions is
// package train/replay; the run's metrics log and plots are package
// train/metrics; the progress reports of its phases are package
// train/progress.
//
// Every file the package writes goes through codec.WriteFileAtomic.
//
// A change of the observation encoding, the action encoding or the network
// file format breaks the version fixtures and the built-in player:
// TestFixturesFollowTheEncoding says so, and the procedure of
// train/internal/fixtures (go generate ./train) makes them again.
package train

//go:generate sh -c "cd .. && go run ./train/internal/fixtures -write"
