package train

import (
	"context"
	"fmt"
	"time"

	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train/remotegames"
)

// feedPause is the pause, while the run trains, after a Collect that
// brought no game.
const feedPause = 100 * time.Millisecond

// feeding takes the remote games into the replay buffer in the
// background: while the run trains, and while it writes a checkpoint.
type feeding struct {
	cancel context.CancelFunc
	done   chan error
	// res, and first (its request's First, still to be made), are the
	// goroutine's until it is done.
	res   remotegames.Result
	first bool
}

// feed starts taking the remote games after res's cursor (or req's, when
// res has none) into the replay buffer, adding what they brought to res,
// until stop is called. req.First is for the first Collect only.
func (r *runner) feed(req remotegames.Request, res remotegames.Result) *feeding {
	ctx, cancel := context.WithCancel(context.Background())
	f := &feeding{cancel: cancel, done: make(chan error, 1), res: res, first: req.First}
	if r.opts.Remote == nil {
		f.done <- nil
		return f
	}
	go func() {
		for ctx.Err() == nil {
			if f.res.Cursor != nil {
				req.Cursor = f.res.Cursor
			}
			req.First = f.first
			more, err := r.opts.Remote.Collect(ctx, req, r.replay.Add)
			f.first = false
			f.res.Merge(more) // what was added stays added, also when cut short
			if err != nil && ctx.Err() == nil {
				f.done <- fmt.Errorf("remote games: %w", err)
				return
			}
			if more.Games > 0 {
				continue // more may be waiting already
			}
			select {
			case <-ctx.Done():
			case <-time.After(feedPause):
			}
		}
		f.done <- nil
	}()
	return f
}

// stop ends the feeding and returns what it brought, with the first error
// of a Collect, and whether the First Collect it was asked for is still
// to be made (it made none).
func (f *feeding) stop() (res remotegames.Result, first bool, err error) {
	f.cancel()
	err = <-f.done
	return f.res, f.first, err
}

// NetworkHook is called with each network self-play should use from now
// on: the current one when the session starts, then each new one once its
// checkpoint is written.
type NetworkHook func(version int, net *model.Network) error
