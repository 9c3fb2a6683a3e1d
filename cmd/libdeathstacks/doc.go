// Command libdeathstacks is the project as a C shared library, for other
// languages: the Python package in env/python loads it with ctypes.
//
//	go build -buildmode=c-shared -o libdeathstacks.so ./cmd/libdeathstacks
//
// writes the library and its header, libdeathstacks.h, which declares
// every function. The API:
//
//   - Objects live in the library under integer handles (no Go pointer is
//     kept by the caller): ds_env_new (one game: reset, step, observe,
//     state, legal actions, FEN, board, moves), ds_vec_new (many games
//     stepped together across the cores with next-step auto-reset,
//     optionally against a player spec), ds_player_new (any player spec:
//     choose returns the decision as JSON), ds_network_new (a model path's
//     batched inference, weights and description; ds_network_save writes
//     a player file back from weights), ds_search_new and ds_selfplay_new
//     (searches and self-play games guided by the caller's evaluator; see
//     below), ds_arena_new (an evaluation of players as deathstacks eval
//     plays it, in the background: see arena.go); ds_close releases any
//     of them.
//     Calls on one handle take turns; calls on different handles run in
//     parallel.
//   - Buffers are the caller's: a pointer and a length in elements (float
//     observations of 21x6x6 planes, one byte 0/1 per action of the 6,912
//     for masks, int64 actions), NULL to skip an optional output. Go writes
//     into them during the call only.
//   - Every function returns an int64: 0 or more on success (a handle, a
//     count, a text length), or a negative code whose message
//     ds_error_message hands over once. Every function recovers from a
//     panic into such an error, so bad input never crashes the caller.
//   - Text comes back NUL-terminated in (buf, cap); the return value is its
//     full length, so a result of cap or more means: call again with a
//     larger buffer.
//   - A caller's evaluator (a Python function) is never called from Go:
//     the searches of a run (ds_search_start, ds_selfplay_start) are
//     coroutines that the caller's own calls step. ds_batch_next runs
//     them on to their next leaves, written into the caller's arrays; the
//     caller evaluates them in one batch and hands the logits and values
//     back with ds_batch_feed (priors as the network's evaluator makes
//     them), until ds_batch_next returns 0; ds_batch_round does a feed and
//     the next ds_batch_next in one call (the Python package's way). The
//     caller's thread steps a share of the searches and a worker for each
//     further core the rest (a stepped.Run); a run's calls come from one
//     thread.
//     ds_batch_abort stops a run (see steps.go).
//     An evaluation's Python players (an evaluator, searching as an az
//     player does, or a policy) are served the same way from the caller's
//     wait loop: ds_arena_wait says which player has work, a batch of the
//     leaves of all its games (ds_arena_leaves, ds_arena_feed) or a
//     position to move in (ds_arena_question, ds_arena_answer); see
//     train/arena's CallerPlayers.
//
// The library is the C boundary: handles, the exported functions,
// buffers and thread pinning. What it hands out is package
// train/binding's (settings, positions, searches and self-play, result
// rows, weights), which a Go user or another binding calls without cgo;
// train/arena's for an evaluation. Its files: exports.go (the exported C
// functions, which only convert arguments), handles.go (the handle
// table, errors as codes), thread.go and steps.go (a run's rounds on the
// caller's thread), and one file for each thing the API hands out:
// env.go (one environment, the rules from C's numbers), vector.go
// (env/vector's Vector, opponents of a spec), player.go (players of any spec),
// network.go (a network's inference and weights), search.go and
// selfplay.go (the caller's evaluator's searches and self-play),
// arena.go (an evaluation of players, its Python players being
// train/arena's CallerPlayers). Its test builds the library and runs the
// Python package's tests against it.
package main
