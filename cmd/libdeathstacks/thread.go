package main

/*
#include <pthread.h>
#include <stdint.h>

static uintptr_t ds_thread(void) { return (uintptr_t)pthread_self(); }
*/
import "C"

// callerThread identifies the thread of the call from C under way: the
// thread a run's coroutines on the caller's side belong to (see steps.go).
func callerThread() uintptr { return uintptr(C.ds_thread()) }
