package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/deathstacks/deathstacks/train/table"
)

// What every command that stops on a signal shares: the context the
// signal ends, and the one way of saying that the work stopped, with the
// exit status that tells a script so.

// stopSignal is the signal that stopped a command: the cause of the
// context [onStop] returns, once a signal ended it.
type stopSignal struct{ sig syscall.Signal }

func (e stopSignal) Error() string { return "stopped by " + e.sig.String() }

// status is the exit status of a command the signal stopped: 128 plus the
// signal's number, as a shell reports a process the signal ended (130 for
// Ctrl-C, SIGINT; 143 for SIGTERM), so that "deathstacks train && ..."
// goes no further.
func (e stopSignal) status() int { return 128 + int(e.sig) }

// onStop returns a context that the first Ctrl-C (SIGINT) or SIGTERM
// ends, with the signal as its [context.Cause], after saying on s.err
// "stopping: <doing>"; a second signal then ends the process at once. A
// test's s.stop ends the context too, as a signal would: its cause when
// that is a stopSignal, else as Ctrl-C. The line comes before the context
// ends, so before anything the command says of its stop. release gives
// the signals back.
func onStop(s stdio, doing string) (ctx context.Context, release func()) {
	parent := s.stopContext()
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	stopping := func(cause error) {
		fmt.Fprintln(s.err, "\nstopping: "+doing+" (interrupt again to quit at once)")
		cancel(cause)
	}
	if parent.Err() != nil {
		// Stopped before the start: cancelled now, so that no work begins.
		stopping(context.Cause(parent))
		return ctx, func() { cancel(nil) }
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit, said := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(said)
		var cause error
		select {
		case sig := <-sigs:
			signal.Stop(sigs) // a second signal ends the process
			sysSig, _ := sig.(syscall.Signal)
			cause = stopSignal{sysSig}
		case <-parent.Done():
			cause = context.Cause(parent)
		case <-quit:
			return
		}
		stopping(cause)
	}()
	return ctx, func() {
		close(quit)
		<-said
		cancel(nil)
		signal.Stop(sigs)
	}
}

// stopCause returns the signal that ended ctx, a context of [onStop]; a
// test's stop without a signal counts as Ctrl-C.
func stopCause(ctx context.Context) stopSignal {
	var sig stopSignal
	if errors.As(context.Cause(ctx), &sig) {
		return sig
	}
	return stopSignal{syscall.SIGINT}
}

// stoppedError is the error of a command that the signal of ctx stopped
// before its end, with the status of that signal ([stopSignal.status]).
// Every command says it the same way, in one line: "stopped", then "
// after <done>" when it counts its work (see [ofTotal]), then ";
// continue with: <again>" when a command continues the work.
func stoppedError(ctx context.Context, done, again string) error {
	msg := "stopped"
	if done != "" {
		msg += " after " + done
	}
	if again != "" {
		msg += "; continue with: " + again
	}
	return &exitError{code: stopCause(ctx).status(), err: errors.New(msg)}
}

// ofTotal says how far work of total units came: "12 of 40 games", or
// without a known total "12 games".
func ofTotal(done, total int, singular, plural string) string {
	if total <= 0 {
		return table.Count(done, singular, plural)
	}
	return strconv.Itoa(done) + " of " + table.Count(total, singular, plural)
}
