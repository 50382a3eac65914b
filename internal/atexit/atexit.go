// Package atexit holds the removals a run still owes (its test file, its
// marker, its private directory), so that a process made to end before its
// normal cleanup (a person's late second ^C) still removes what it can.
//
// Each removal runs exactly once: either by the run itself, through the
// function Register returns, or by RunAll on the way out. Both take one
// lock, so an abort waits for a removal already under way rather than race
// it, and a removal never runs twice.
package atexit

import (
	"sync"
	"time"
)

var (
	mu      sync.Mutex
	pending = map[int]func() error{}
	next    int
)

// Register records f and returns the function the run calls instead of f:
// it runs f unless RunAll has already, and unregisters it. f must not call
// Register, RunAll or another registered removal (one lock holds them all).
func Register(f func() error) func() error {
	mu.Lock()
	id := next
	next++
	pending[id] = f
	mu.Unlock()
	return func() error {
		mu.Lock()
		defer mu.Unlock()
		g, ok := pending[id]
		if !ok {
			return nil
		}
		delete(pending, id)
		return g()
	}
}

// RunAll runs every pending removal, the latest registered first, and
// returns how many ran. It waits at most wait for a removal the run has
// under way (one hung on a dead device must not keep the process alive);
// the pending ones are then left, and the lock with them, since the caller
// exits next.
func RunAll(wait time.Duration) int {
	got := make(chan struct{})
	go func() { mu.Lock(); close(got) }()
	select {
	case <-got:
	case <-time.After(wait):
		return 0
	}
	defer mu.Unlock()
	n := 0
	for next > 0 {
		next--
		if f, ok := pending[next]; ok {
			delete(pending, next)
			_ = f()
			n++
		}
	}
	return n
}
