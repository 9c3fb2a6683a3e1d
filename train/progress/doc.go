// Package progress reports how far a long job has come: [New] makes a
// [Bar] that draws a bar on a terminal and prints plain lines every
// 10 seconds anywhere else. Package train reports its self-play,
// training and evaluation phases with it; the eval and ladder commands
// their games.
package progress
