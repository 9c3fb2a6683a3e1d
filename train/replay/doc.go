// Package replay is the training run's replay window: the newest training
// positions, drawn in uniform batches with optional symmetry augmentation,
// and its compact binary form inside a checkpoint.
package replay
