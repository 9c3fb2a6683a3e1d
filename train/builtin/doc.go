// Package builtin holds the networks compiled into the binary: the
// built-in player, an exported player file (written by `deathstacks
// export`) which an az player spec without a model plays with, and so
// `deathstacks play` and `deathstacks bot` by default; and the anchor
// (az:model=anchor), the fixed point of the project's Elo scale.
//
// Replacing the player is a one-file swap: export the new network over
// player.dsnn and rebuild. The anchor, anchor-2026-12.dsnn, is an earlier
// network, the built-in player of 2026-12-03, and never changes: the
// ladder, the in-training evaluation and the README's tables rate against
// it, so that ratings made before and after a new built-in player are on
// one scale. Each
// file's metadata records how it was made (`deathstacks inspect` without
// a file shows the player's, `deathstacks inspect anchor` the anchor's).
package builtin
