package main

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// The C API hands out integer handles, never Go pointers: the objects live
// in handles, and C holds only their numbers. Every object carries its own
// lock, so that two threads of the caller using one handle at once take
// turns instead of racing.

// object is what a handle stands for.
type object interface {
	// close releases what the object holds; it is called once.
	close() error
}

// handles maps handle numbers to their objects.
var handles = struct {
	sync.Mutex
	next int64
	objs map[int64]*entry
}{objs: map[int64]*entry{}}

// entry is a live object with the lock its calls take.
type entry struct {
	mu  sync.Mutex
	obj object
}

// register stores obj and returns its handle, a number from 1 up.
func register(obj object) int64 {
	handles.Lock()
	defer handles.Unlock()
	handles.next++
	handles.objs[handles.next] = &entry{obj: obj}
	return handles.next
}

// with calls f with the object of handle h, of type T, under its lock.
func with[T object](h int64, what string, f func(T) (int64, error)) (int64, error) {
	handles.Lock()
	e, ok := handles.objs[h]
	handles.Unlock()
	if !ok {
		return 0, fmt.Errorf("%s handle %d: closed or never opened", what, h)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	obj, ok := e.obj.(T)
	if !ok {
		return 0, fmt.Errorf("handle %d is a %s, not a %s", h, kindOf(e.obj), what)
	}
	return f(obj)
}

// kindOf names an object's kind in errors.
func kindOf(o object) string {
	switch o.(type) {
	case *single:
		return "environment"
	case *vector:
		return "vector environment"
	case *player:
		return "player"
	case *network:
		return "network"
	case *searcher:
		return "search"
	case *selfPlayRun:
		return "self-play"
	case *evaluation:
		return "arena"
	}
	return fmt.Sprintf("%T", o)
}

// closeHandle closes and forgets handle h. Closing it again is an error.
func closeHandle(h int64) error {
	handles.Lock()
	e, ok := handles.objs[h]
	delete(handles.objs, h)
	handles.Unlock()
	if !ok {
		return fmt.Errorf("close handle %d: closed or never opened", h)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.obj.close()
}

// Errors go back to C as negative numbers: -id of a message kept here until
// the caller takes it with ds_error_message. At most maxErrors are kept; a
// caller that never takes them loses the oldest.
const maxErrors = 1024

var errs = struct {
	sync.Mutex
	next  int64
	msgs  map[int64]string
	order []int64
}{msgs: map[int64]string{}}

// keepError stores err's message and returns the negative code that
// stands for it.
func keepError(err error) int64 {
	errs.Lock()
	defer errs.Unlock()
	errs.next++
	errs.msgs[errs.next] = err.Error()
	errs.order = append(errs.order, errs.next)
	if len(errs.order) > maxErrors {
		delete(errs.msgs, errs.order[0])
		errs.order = errs.order[1:]
	}
	return -errs.next
}

// takeError returns and forgets the message of code (negative, as
// returned); an unknown code has a message saying so.
func takeError(code int64) string {
	errs.Lock()
	defer errs.Unlock()
	msg, ok := errs.msgs[-code]
	if !ok {
		return fmt.Sprintf("error %d: no message (already taken, or too old)", code)
	}
	delete(errs.msgs, -code)
	return msg
}

// call runs f and turns its result into the C API's return value: the
// result, or a negative error code for an error or a panic.
func call(f func() (int64, error)) (ret int64) {
	defer func() {
		if r := recover(); r != nil {
			ret = keepError(internalError(r))
		}
	}()
	n, err := f()
	if err != nil {
		return keepError(err)
	}
	return n
}

// internalError is the error of a recovered panic r, with the stack.
func internalError(r any) error {
	return fmt.Errorf("internal error (please report): %v\n%s", r, debug.Stack())
}

// offThread runs f on a goroutine of its own and waits for it, a panic in
// f coming back as its error. A call from C runs on a goroutine locked to
// the caller's thread, and each time such a goroutine blocks, its
// processor passes to another thread and back: an az player's search,
// which waits on the network server several times a move, is slowed by a
// quarter so (see player.choose). Work that blocks often runs off that
// thread, and the caller's goroutine blocks once.
func offThread(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- guard(f) }()
	return <-done
}

// guard runs f, a panic in it coming back as its error: the exported
// functions recover only the panics of their own goroutine, and one on
// another would end the caller's process.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = internalError(r)
		}
	}()
	return f()
}
