// Package env is the Death Stacks rules engine and a gym-style environment
// around it.
//
// The engine ([Position], [Move], [Game]) implements the rules of the
// project's RULES.md exactly: a 6x6 board, stacks of up to 24 ordered
// pieces, moves that lift the top k pieces of a stack and carry them exactly
// k squares in one of eight directions with reflection at the edges, the
// too-tall rule, wins, draws by repetition and the move limit. Positions and
// moves read and write the FEN and move notation shared with other Death
// Stacks programs ("rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb r",
// "a6-2-a4").
//
// The learning side ([Env], [Action], [EncodeObservation], [Symmetry]) gives
// agents a fixed action space of [NumActions] indices with legal-move masks,
// observation planes of shape [NumPlanes] x 6 x 6 seen from the side to move,
// and the eight symmetries of the square for data augmentation. [Env] reads
// like a Gymnasium environment (Reset with a seed and [ResetOptions], Step,
// [ObservationSpace], [ActionSpace]); [AEC] is its per-agent view in the
// manner of PettingZoo, with the action mask delivered with the observation.
// Package env/vector steps many of them at once.
//
// Package env imports nothing else of this module.
package env
