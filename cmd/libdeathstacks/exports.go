package main

/*
#include <stdint.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/deathstacks/deathstacks/env"
	vec "github.com/deathstacks/deathstacks/env/vector"
	"github.com/deathstacks/deathstacks/train/binding"
)

// The exported C functions. Each returns an int64_t: 0 or more on success
// (a handle, a count or a length), or a negative error code whose message
// ds_error_message hands over. Each recovers from a panic into an error
// code. Buffers are the caller's: a pointer and a length in elements, the
// pointer NULL to skip an optional output; Go writes into them during the
// call and keeps no pointer after it. Strings in are NUL-terminated UTF-8;
// text out is written NUL-terminated into (buf, cap), and the return value
// is the text's full length in bytes: when it is cap or more, the text was
// cut short and the caller calls again with a larger buffer.

// goString reads a C string; NULL reads as "".
func goString(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// slice views a caller's buffer of n elements; NULL is nil, an optional
// output skipped.
func slice[T any](p unsafe.Pointer, n C.int64_t) ([]T, error) {
	if p == nil {
		return nil, nil
	}
	if n < 0 || n > 1<<40 {
		return nil, fmt.Errorf("a buffer of %d elements", int64(n))
	}
	return unsafe.Slice((*T)(p), int(n)), nil
}

// writeText copies s, NUL-terminated and cut to fit, into the caller's
// buffer and returns len(s).
func writeText(buf *C.char, cap C.int64_t, s string) (int64, error) {
	b, err := slice[byte](unsafe.Pointer(buf), cap)
	if err != nil {
		return 0, err
	}
	if len(b) > 0 {
		n := copy(b[:len(b)-1], s)
		b[n] = 0
	}
	return int64(len(s)), nil
}

// text is call for a function returning text.
func text(buf *C.char, cap C.int64_t, f func() (string, error)) C.int64_t {
	return C.int64_t(call(func() (int64, error) {
		s, err := f()
		if err != nil {
			return 0, err
		}
		return writeText(buf, cap, s)
	}))
}

// do is call for the C API.
func do(f func() (int64, error)) C.int64_t { return C.int64_t(call(f)) }

// on is do for a call on the object of handle h, of type T; what names
// the kind of object in errors.
func on[T object](h C.int64_t, what string, f func(T) (int64, error)) C.int64_t {
	return do(func() (int64, error) { return with(int64(h), what, f) })
}

// onText is on for a call returning text, written into (buf, cap).
func onText[T object](h C.int64_t, what string, buf *C.char, cap C.int64_t, f func(T) (string, error)) C.int64_t {
	return on(h, what, func(o T) (int64, error) {
		t, err := f(o)
		if err != nil {
			return 0, err
		}
		return writeText(buf, cap, t)
	})
}

// open is do for a call that makes an object: its new handle.
func open[T object](newObject func() (T, error)) C.int64_t {
	return do(func() (int64, error) {
		obj, err := newObject()
		if err != nil {
			return 0, err
		}
		return register(obj), nil
	})
}

//export ds_error_message
func ds_error_message(code C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return text(buf, cap, func() (string, error) { return takeError(int64(code)), nil })
}

//export ds_info
func ds_info(buf *C.char, cap C.int64_t) C.int64_t {
	return text(buf, cap, func() (string, error) { return binding.InfoJSON(), nil })
}

//export ds_close
func ds_close(h C.int64_t) C.int64_t {
	return do(func() (int64, error) { return 0, closeHandle(int64(h)) })
}

//export ds_legal_moves
func ds_legal_moves(fen *C.char, tooTall C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return text(buf, cap, func() (string, error) { return binding.LegalMoves(goString(fen), tooTall != 0) })
}

//export ds_render_fen
func ds_render_fen(fen *C.char, buf *C.char, cap C.int64_t) C.int64_t {
	return text(buf, cap, func() (string, error) { return binding.RenderFEN(goString(fen)) })
}

//export ds_action_of
func ds_action_of(move *C.char) C.int64_t {
	return do(func() (int64, error) { return binding.ActionOf(goString(move)) })
}

//export ds_move_of
func ds_move_of(action C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return text(buf, cap, func() (string, error) { return binding.MoveOf(int64(action)) })
}

//export ds_env_new
func ds_env_new(tooTall, maxPlies, repetitions, openingPlies C.int64_t) C.int64_t {
	return open(func() (*single, error) {
		o, err := optionsOf(int64(tooTall), int64(maxPlies), int64(repetitions), int64(openingPlies))
		if err != nil {
			return nil, err
		}
		return newSingle(o)
	})
}

// obsMask views an observation and a mask buffer.
func obsMask(obs unsafe.Pointer, nObs C.int64_t, mask unsafe.Pointer, nMask C.int64_t) ([]float32, []bool, error) {
	o, err := slice[float32](obs, nObs)
	if err != nil {
		return nil, nil, fmt.Errorf("observation: %w", err)
	}
	m, err := slice[bool](mask, nMask)
	if err != nil {
		return nil, nil, fmt.Errorf("mask: %w", err)
	}
	return o, m, nil
}

//export ds_env_reset
func ds_env_reset(h C.int64_t, seed C.uint64_t, fen *C.char, openingPlies C.int64_t, obs unsafe.Pointer, nObs C.int64_t, mask unsafe.Pointer, nMask C.int64_t) C.int64_t {
	return on(h, "environment", func(s *single) (int64, error) {
		o, m, err := obsMask(obs, nObs, mask, nMask)
		if err != nil {
			return 0, err
		}
		return 0, s.Reset(uint64(seed), goString(fen), int64(openingPlies), o, m)
	})
}

// ds_env_step writes the reward, terminated (0 or 1) and truncated into
// out, which has room for 3 doubles.
//
//export ds_env_step
func ds_env_step(h, action C.int64_t, obs unsafe.Pointer, nObs C.int64_t, mask unsafe.Pointer, nMask C.int64_t, out *C.double) C.int64_t {
	return on(h, "environment", func(s *single) (int64, error) {
		o, m, err := obsMask(obs, nObs, mask, nMask)
		if err != nil {
			return 0, err
		}
		res, err := slice[float64](unsafe.Pointer(out), 3)
		if err != nil || res == nil {
			return 0, fmt.Errorf("step: no result buffer")
		}
		reward, term, trunc, err := s.Step(int64(action), o, m)
		if err != nil {
			return 0, err
		}
		res[0], res[1], res[2] = float64(reward), b2f(term), b2f(trunc)
		return 0, nil
	})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

//export ds_env_observe
func ds_env_observe(h C.int64_t, obs unsafe.Pointer, nObs C.int64_t, mask unsafe.Pointer, nMask C.int64_t) C.int64_t {
	return on(h, "environment", func(s *single) (int64, error) {
		o, m, err := obsMask(obs, nObs, mask, nMask)
		if err != nil {
			return 0, err
		}
		return 0, s.ObserveInto(o, m)
	})
}

// ds_env_state writes status, ply, repetitions, side to move and the
// number of legal actions into out (5 int64s).
//
//export ds_env_state
func ds_env_state(h C.int64_t, out *C.int64_t, n C.int64_t) C.int64_t {
	return on(h, "environment", func(s *single) (int64, error) {
		o, err := slice[int64](unsafe.Pointer(out), n)
		if err != nil {
			return 0, err
		}
		return 0, s.State(o)
	})
}

//export ds_env_legal
func ds_env_legal(h C.int64_t, out *C.int64_t, n C.int64_t) C.int64_t {
	return on(h, "environment", func(s *single) (int64, error) {
		o, err := slice[int64](unsafe.Pointer(out), n)
		if err != nil {
			return 0, err
		}
		return s.Legal(o), nil
	})
}

// ds_env_text writes the game's FEN (which 0), the board drawn (1), the
// moves played (2) or the start FEN (3).
//
//export ds_env_text
func ds_env_text(h, which C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "environment", buf, cap, func(s *single) (string, error) { return s.Text(int64(which)) })
}

//export ds_vec_new
func ds_vec_new(n, tooTall, maxPlies, repetitions, openingPlies C.int64_t, opponent *C.char, colour C.int64_t) C.int64_t {
	return open(func() (*vector, error) {
		o, err := optionsOf(int64(tooTall), int64(maxPlies), int64(repetitions), int64(openingPlies))
		if err != nil {
			return nil, err
		}
		return newVector(int64(n), o, goString(opponent), int64(colour))
	})
}

// vecBuffers views the buffers of a vector call.
func vecBuffers(obs, mask, rewards, term, trunc, info unsafe.Pointer, n C.int64_t) (*vec.Buffers, error) {
	var b vec.Buffers
	var err error
	k := int64(n)
	if b.Observations, err = slice[float32](obs, C.int64_t(k*env.ObservationSize)); err != nil {
		return nil, err
	}
	if b.Masks, err = slice[bool](mask, C.int64_t(k*env.NumActions)); err != nil {
		return nil, err
	}
	if b.Rewards, err = slice[float32](rewards, n); err != nil {
		return nil, err
	}
	if b.Terminations, err = slice[bool](term, n); err != nil {
		return nil, err
	}
	if b.Truncations, err = slice[bool](trunc, n); err != nil {
		return nil, err
	}
	if b.Infos, err = slice[int64](info, C.int64_t(k*vec.InfoColumns)); err != nil {
		return nil, err
	}
	return &b, nil
}

// actionsOf views a buffer of n actions, which what needs.
func actionsOf(actions unsafe.Pointer, n C.int64_t, what string) ([]int64, error) {
	acts, err := slice[int64](actions, n)
	if err == nil && acts == nil {
		err = errors.New(what)
	}
	return acts, err
}

// ds_vec_reset and ds_vec_step take n, the number of environments the
// caller's arrays are for: observations n*756 floats, masks n*6912 bytes,
// rewards n floats, terminations and truncations n bytes, infos n*6
// int64s, any of them NULL to skip it.
//
//export ds_vec_reset
func ds_vec_reset(h C.int64_t, seed C.uint64_t, n C.int64_t, obs, mask, info unsafe.Pointer) C.int64_t {
	return on(h, "vector environment", func(v *vector) (int64, error) {
		b, err := vecBuffers(obs, mask, nil, nil, nil, info, n)
		if err != nil {
			return 0, err
		}
		if int64(n) != int64(v.Len()) {
			return 0, fmt.Errorf("reset: arrays for %d environments, have %d", int64(n), v.Len())
		}
		return 0, v.Reset(uint64(seed), b)
	})
}

//export ds_vec_step
func ds_vec_step(h C.int64_t, n C.int64_t, actions, obs, mask, rewards, term, trunc, info unsafe.Pointer) C.int64_t {
	return on(h, "vector environment", func(v *vector) (int64, error) {
		b, err := vecBuffers(obs, mask, rewards, term, trunc, info, n)
		if err != nil {
			return 0, err
		}
		acts, err := actionsOf(actions, n, "step: no actions")
		if err != nil {
			return 0, err
		}
		return 0, v.step(acts, b)
	})
}

//export ds_vec_sample
func ds_vec_sample(h C.int64_t, n C.int64_t, actions unsafe.Pointer) C.int64_t {
	return on(h, "vector environment", func(v *vector) (int64, error) {
		acts, err := actionsOf(actions, n, "sample: no action buffer")
		if err != nil {
			return 0, err
		}
		return 0, v.sample(acts)
	})
}

//export ds_vec_fen
func ds_vec_fen(h, i C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "vector environment", buf, cap, func(v *vector) (string, error) { return v.fen(int64(i)) })
}

//export ds_player_new
func ds_player_new(spec *C.char, seed C.uint64_t) C.int64_t {
	return open(func() (*player, error) { return newPlayer(goString(spec), uint64(seed)) })
}

// ds_player_choose writes the decision as JSON; ds_player_last writes the
// last one again, for a caller whose buffer was too short.
//
//export ds_player_choose
func ds_player_choose(h C.int64_t, fen, moves *C.char, tooTall, maxPlies, repetitions C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "player", buf, cap, func(p *player) (string, error) {
		r, err := rulesOf(int64(tooTall), int64(maxPlies), int64(repetitions))
		if err != nil {
			return "", err
		}
		return p.choose(goString(fen), goString(moves), r)
	})
}

//export ds_player_last
func ds_player_last(h C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "player", buf, cap, func(p *player) (string, error) { return p.last, nil })
}

//export ds_network_new
func ds_network_new(path *C.char) C.int64_t {
	return open(func() (*network, error) { return newNetwork(goString(path)) })
}

//export ds_network_predict
func ds_network_predict(h, n C.int64_t, obs, logits, values unsafe.Pointer) C.int64_t {
	return on(h, "network", func(nw *network) (int64, error) {
		if n < 0 || n > 1<<24 {
			return 0, fmt.Errorf("predict: %d positions", int64(n))
		}
		o, err := slice[float32](obs, n*env.ObservationSize)
		if err != nil {
			return 0, err
		}
		l, err := slice[float32](logits, n*env.NumActions)
		if err != nil {
			return 0, err
		}
		v, err := slice[float32](values, n)
		if err != nil {
			return 0, err
		}
		return 0, nw.Predict(o, int(n), l, v)
	})
}

// ds_network_weights_index writes the network's tensors' names, shapes
// and offsets as JSON; ds_network_weights writes the tensors, concatenated
// in that order, into out (n float32 values, exactly their total).
//
//export ds_network_weights_index
func ds_network_weights_index(h C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "network", buf, cap, (*network).WeightsIndex)
}

//export ds_network_weights
func ds_network_weights(h C.int64_t, out unsafe.Pointer, n C.int64_t) C.int64_t {
	return on(h, "network", func(nw *network) (int64, error) {
		o, err := slice[float32](out, n)
		if err != nil {
			return 0, err
		}
		return 0, nw.CopyWeights(o)
	})
}

// The network in other frameworks (PyTorch): what a network handle tells
// of its network besides the weights, and a network written back from
// its weights.

// ds_network_about writes the network's architecture, training steps and
// metadata (with the search settings it plays with under "search") as
// JSON.
//
//export ds_network_about
func ds_network_about(h C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "network", buf, cap, (*network).About)
}

// ds_network_save writes a player file at path from a network's
// description (JSON: "config", "steps", "meta" as ds_network_about
// writes them; optional "search", settings by az spec key, and
// "extra_meta") and its n weights, float32 in the order of
// ds_network_weights.
//
//export ds_network_save
func ds_network_save(request *C.char, weights unsafe.Pointer, n C.int64_t, path *C.char) C.int64_t {
	return do(func() (int64, error) {
		w, err := slice[float32](weights, n)
		if err != nil {
			return 0, fmt.Errorf("save network: weights: %w", err)
		}
		return 0, binding.SaveNetwork(goString(request), w, goString(path))
	})
}

// ds_server_stats writes the batches run and positions evaluated by the
// network server of a model path ("" for the built-in player) into out (2
// int64s).
//
//export ds_server_stats
func ds_server_stats(path *C.char, out *C.int64_t) C.int64_t {
	return do(func() (int64, error) {
		o, err := slice[int64](unsafe.Pointer(out), 2)
		if err != nil {
			return 0, err
		}
		return 0, binding.ServerStats(goString(path), models().Load, o)
	})
}

// Searches and self-play guided by the caller's evaluator (search.go,
// selfplay.go, steps.go): a run starts, the caller takes each batch of
// leaves with ds_batch_next (n observations of 21x6x6 floats and n masks
// of 6,912 bytes written into its arrays, room for cap positions; 0 once
// the run has ended), evaluates them and hands back n rows of 6,912
// logits and n values with ds_batch_feed, or gives up with
// ds_batch_abort; then it reads the results. ds_batch_feed returns at
// once: the caller keeps the arrays unchanged until its next call of
// ds_batch_next (or ds_batch_abort) returns, which reads them, reports
// bad values or logits and runs the searches on to their next leaves.
// ds_batch_round does a feed and the next ds_batch_next in one call. The
// calls of a run come from one thread (the searches' coroutines belong
// to it): a call from another is refused.

//export ds_search_new
func ds_search_new(settings *C.char, seed C.uint64_t, tooTall, maxPlies, repetitions C.int64_t) C.int64_t {
	return open(func() (*searcher, error) {
		r, err := rulesOf(int64(tooTall), int64(maxPlies), int64(repetitions))
		if err != nil {
			return nil, err
		}
		return newSearcher(goString(settings), uint64(seed), r)
	})
}

// ds_search_start takes the positions as a JSON list of {"fen": FEN,
// "moves": [MOVE, ...]} and returns how many there are.
//
//export ds_search_start
func ds_search_start(h C.int64_t, positions *C.char) C.int64_t {
	return on(h, "search", func(s *searcher) (int64, error) { return s.start(goString(positions)) })
}

// ds_search_results writes n positions' visits (int32) and policy targets
// (float32) over the 6,912 actions, root values (float32) and chosen
// actions (int64).
//
//export ds_search_results
func ds_search_results(h, n C.int64_t, visits, policy, values, actions unsafe.Pointer) C.int64_t {
	return on(h, "search", func(s *searcher) (int64, error) {
		if n < 0 || n > 1<<24 {
			return 0, fmt.Errorf("search results: %d positions", int64(n))
		}
		v, err1 := slice[int32](visits, n*env.NumActions)
		p, err2 := slice[float32](policy, n*env.NumActions)
		val, err3 := slice[float32](values, n)
		a, err4 := slice[int64](actions, n)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return 0, err
		}
		return 0, s.Results(int(n), v, p, val, a)
	})
}

// ds_search_lines writes each position's move, principal variation,
// simulations and proven win length as a JSON list.
//
//export ds_search_lines
func ds_search_lines(h C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "search", buf, cap, (*searcher).Lines)
}

//export ds_selfplay_new
func ds_selfplay_new(settings *C.char) C.int64_t {
	return open(func() (*selfPlayRun, error) { return newSelfPlayRun(goString(settings)) })
}

//export ds_selfplay_start
func ds_selfplay_start(h, games C.int64_t, seed C.uint64_t) C.int64_t {
	return on(h, "self-play", func(r *selfPlayRun) (int64, error) { return r.start(int64(games), uint64(seed)) })
}

// ds_selfplay_size returns the number of training samples of the games.
//
//export ds_selfplay_size
func ds_selfplay_size(h C.int64_t) C.int64_t {
	return on(h, "self-play", (*selfPlayRun).Size)
}

// ds_selfplay_samples writes n samples: observations (n*756 floats),
// masks (n*6912 bytes), policy targets (n*6912 floats), value targets (n
// floats), games and plies (n int64s each).
//
//export ds_selfplay_samples
func ds_selfplay_samples(h, n C.int64_t, obs, mask, policy, value, game, ply unsafe.Pointer) C.int64_t {
	return on(h, "self-play", func(r *selfPlayRun) (int64, error) {
		if n < 0 || n > 1<<30 {
			return 0, fmt.Errorf("self-play samples: %d samples", int64(n))
		}
		o, err1 := slice[float32](obs, n*env.ObservationSize)
		m, err2 := slice[bool](mask, n*env.NumActions)
		p, err3 := slice[float32](policy, n*env.NumActions)
		v, err4 := slice[float32](value, n)
		g, err5 := slice[int64](game, n)
		pl, err6 := slice[int64](ply, n)
		if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil {
			return 0, err
		}
		return 0, r.Samples(int(n), o, m, p, v, g, pl)
	})
}

// ds_selfplay_targets writes n samples' targets of the trainer's
// auxiliary heads: the opponent's replies (n*6912 floats) and whether
// each has one (n bytes), the final ownership (n*36 floats) and score (n
// floats).
//
//export ds_selfplay_targets
func ds_selfplay_targets(h, n C.int64_t, reply, hasReply, ownership, score unsafe.Pointer) C.int64_t {
	return on(h, "self-play", func(r *selfPlayRun) (int64, error) {
		if n < 0 || n > 1<<30 {
			return 0, fmt.Errorf("self-play targets: %d samples", int64(n))
		}
		rp, err1 := slice[float32](reply, n*env.NumActions)
		hr, err2 := slice[bool](hasReply, n)
		o, err3 := slice[float32](ownership, n*env.NumSquares)
		s, err4 := slice[float32](score, n)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return 0, err
		}
		return 0, r.Targets(int(n), rp, hr, o, s)
	})
}

// ds_selfplay_games writes n games' lengths in plies and winners (-1
// none, 0 red, 1 blue; int64s) and whether they ended by resignation
// (bytes).
//
//export ds_selfplay_games
func ds_selfplay_games(h, n C.int64_t, plies, winner, resigned unsafe.Pointer) C.int64_t {
	return on(h, "self-play", func(r *selfPlayRun) (int64, error) {
		p, err1 := slice[int64](plies, n)
		w, err2 := slice[int64](winner, n)
		res, err3 := slice[bool](resigned, n)
		if err := errors.Join(err1, err2, err3); err != nil {
			return 0, err
		}
		return 0, r.Results(int(n), p, w, res)
	})
}

// ds_selfplay_moves writes the games' moves as a JSON list of lists.
//
//export ds_selfplay_moves
func ds_selfplay_moves(h C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "self-play", buf, cap, (*selfPlayRun).Moves)
}

// ds_symmetries writes the board's eight symmetries as permutations of
// the 36 squares and the 6,912 actions (8x36 and 8x6912 int64s).
//
//export ds_symmetries
func ds_symmetries(squares, actions unsafe.Pointer) C.int64_t {
	return do(func() (int64, error) {
		sq, err1 := slice[int64](squares, env.NumSymmetries*env.NumSquares)
		act, err2 := slice[int64](actions, env.NumSymmetries*env.NumActions)
		if err := errors.Join(err1, err2); err != nil {
			return 0, err
		}
		return 0, binding.Symmetries(sq, act)
	})
}

// ds_batch_size returns the most leaves one search asks for at once: the
// arrays of ds_batch_next must hold that many positions at least.
//
//export ds_batch_size
func ds_batch_size(h C.int64_t) C.int64_t {
	return on(h, "search or self-play", func(r batchRun) (int64, error) { return int64(r.leafLimit()), nil })
}

// batchArrays returns the caller's arrays for a batch of up to cap
// positions' observations and masks.
func batchArrays(cap C.int64_t, obs, mask unsafe.Pointer) ([]float32, []bool, error) {
	if cap < 1 || cap > 1<<20 {
		return nil, nil, fmt.Errorf("next batch: room for %d positions: want 1 to %d", int64(cap), 1<<20)
	}
	return obsMask(obs, cap*env.ObservationSize, mask, cap*env.NumActions)
}

// fedArrays returns the caller's logits and values of a batch of n
// positions.
func fedArrays(n C.int64_t, logits, values unsafe.Pointer) ([]float32, []float32, error) {
	if n < 0 || n > 1<<20 {
		return nil, nil, fmt.Errorf("feed: %d positions", int64(n))
	}
	l, err1 := slice[float32](logits, n*env.NumActions)
	v, err2 := slice[float32](values, n)
	return l, v, errors.Join(err1, err2)
}

// startedRun is on for a call on the run under way or the last one of
// a searcher or a self-play run; what names the call in errors.
func startedRun(h C.int64_t, what string, f func(*stepRun) (int64, error)) C.int64_t {
	return on(h, "search or self-play", func(r batchRun) (int64, error) {
		q := r.leaves()
		if q == nil {
			return 0, errors.New(what + ": nothing was started")
		}
		return f(q)
	})
}

//export ds_batch_next
func ds_batch_next(h, cap C.int64_t, obs, mask unsafe.Pointer) C.int64_t {
	return startedRun(h, "next batch", func(q *stepRun) (int64, error) {
		o, m, err := batchArrays(cap, obs, mask)
		if err != nil {
			return 0, err
		}
		n, err := q.next(leafArrays{obs: o, mask: m}, callerThread())
		return int64(n), err
	})
}

//export ds_batch_feed
func ds_batch_feed(h, n C.int64_t, logits, values unsafe.Pointer) C.int64_t {
	return startedRun(h, "feed", func(q *stepRun) (int64, error) {
		l, v, err := fedArrays(n, logits, values)
		if err != nil {
			return 0, err
		}
		return 0, q.feed(l, v, int(n))
	})
}

// ds_batch_round feeds the n positions of the batch taken last (n rows of
// 6,912 logits and n values; none when n is 0, as before the first batch)
// and returns the next batch into obs and mask (room for cap positions),
// as ds_batch_feed and ds_batch_next do, in one call: the searches write
// the leaves of the next batch into obs and mask as they queue them. The
// caller keeps logits and values unchanged until the next call returns.
//
//export ds_batch_round
func ds_batch_round(h, n C.int64_t, logits, values unsafe.Pointer, cap C.int64_t, obs, mask unsafe.Pointer) C.int64_t {
	return startedRun(h, "round", func(q *stepRun) (int64, error) {
		if n < 0 || n > 1<<20 || cap < 1 || cap > 1<<20 {
			return 0, fmt.Errorf("round: %d positions fed, room for %d: want 0 to %d fed, room for 1 to %d", int64(n), int64(cap), 1<<20, 1<<20)
		}
		l, err1 := slice[float32](logits, n*env.NumActions)
		v, err2 := slice[float32](values, n)
		o, m, err3 := obsMask(obs, cap*env.ObservationSize, mask, cap*env.NumActions)
		if err := errors.Join(err1, err2, err3); err != nil {
			return 0, err
		}
		k, err := q.round(l, v, int(n), leafArrays{obs: o, mask: m}, callerThread())
		return int64(k), err
	})
}

//export ds_batch_abort
func ds_batch_abort(h C.int64_t) C.int64_t {
	return on(h, "search or self-play", func(r batchRun) (int64, error) {
		stopRun(r.leaves())
		return 0, nil
	})
}

// The arena: an evaluation of players (a round robin, or an SPRT between
// two) playing in the background, as deathstacks eval plays it.
// ds_arena_new reads the request as JSON (players and settings, see
// arenaRequest), builds each player once and returns the handle;
// ds_arena_wait waits up to millis for the games to end or a Python
// player to have work, writes the games played and the games in all into
// progress (2 int64s, or NULL), and returns 1 once they have ended, 2+k
// when Python player k has work (below), else 0; ds_arena_result then
// writes the outcome as JSON (results.json's content, the text eval prints and the
// game records, see arenaResult), or returns the evaluation's error.
// ds_close stops the games, killing external programs, and waits for them.
//
// Python players (see arena.CallerPlayers) are played by the caller's loop:
// when ds_arena_wait returns 2+k, player k has work. An evaluator's is a
// batch of leaves: ds_arena_leaves writes them as ds_batch_next does and
// returns their number, and ds_arena_feed takes their logits and values
// as ds_batch_feed does. A policy's is a position: ds_arena_question
// writes {"id", "fen", "moves"} as JSON, the game's start position and
// its moves, and ds_arena_answer gives the move of question id in
// notation.

//export ds_arena_new
func ds_arena_new(request *C.char) C.int64_t {
	return open(func() (*evaluation, error) { return newEvaluation(goString(request)) })
}

//export ds_arena_wait
func ds_arena_wait(h, millis C.int64_t, progress unsafe.Pointer) C.int64_t {
	return on(h, "arena", func(e *evaluation) (int64, error) {
		out, err := slice[int64](progress, 2)
		if err != nil {
			return 0, err
		}
		return e.wait(int64(millis), out)
	})
}

//export ds_arena_result
func ds_arena_result(h C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "arena", buf, cap, (*evaluation).outcome)
}

//export ds_arena_leaves
func ds_arena_leaves(h, k, cap C.int64_t, obs, mask unsafe.Pointer) C.int64_t {
	return on(h, "arena", func(e *evaluation) (int64, error) {
		o, m, err := batchArrays(cap, obs, mask)
		if err != nil {
			return 0, err
		}
		n, err := e.python.Leaves(int64(k), o, m, int(cap))
		return int64(n), err
	})
}

//export ds_arena_feed
func ds_arena_feed(h, k, n C.int64_t, logits, values unsafe.Pointer) C.int64_t {
	return on(h, "arena", func(e *evaluation) (int64, error) {
		l, v, err := fedArrays(n, logits, values)
		if err != nil {
			return 0, err
		}
		return 0, e.python.Feed(int64(k), l, v, int(n))
	})
}

//export ds_arena_question
func ds_arena_question(h, k C.int64_t, buf *C.char, cap C.int64_t) C.int64_t {
	return onText(h, "arena", buf, cap, func(e *evaluation) (string, error) { return e.python.Question(int64(k)) })
}

//export ds_arena_answer
func ds_arena_answer(h, id C.int64_t, move *C.char) C.int64_t {
	return on(h, "arena", func(e *evaluation) (int64, error) { return 0, e.python.Answer(int64(id), goString(move)) })
}

func main() {}
