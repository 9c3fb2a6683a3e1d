// Package builtin holds the project's built-in player: an exported player
// file (written by `deathstacks export`) compiled into the binary, which an
// az player spec without a model plays with, and so `deathstacks play` and
// `deathstacks bot` by default.
//
// Replacing the player is a one-file swap: export the new network over
// player.dsnn and rebuild. The file's metadata records how it was made
// (`deathstacks inspect` without a file shows it).
package builtin
