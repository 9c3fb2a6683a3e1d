// Package codec is the binary file format shared by the network file
// (package model), the replay buffer and the checkpoint (package
// train/checkpoint): a magic string and a format version, little-endian
// values, a CRC-32C of everything before it, readers that check every
// length before they allocate, and files written atomically.
package codec
