// Package stopsig catches the stop signals from the start of the process:
// its initialiser asks for them before the heavier packages' initialisers
// run (a SIGTERM in clyde's first tens of milliseconds killed it with exit
// 143 and no word), and Notify hands what came early to the command's one
// stop. Only the clyde command imports it.
package stopsig

import (
	"os"
	"os/signal"
)

// early holds the stop signals that arrive before Notify.
var early = make(chan os.Signal, 8)

func init() { signal.Notify(early, Signals...) }

// Notify relays the stop signals to ch from now on, after any that arrived
// since the process started (at most cap(early) of them; more were the
// same stop).
func Notify(ch chan<- os.Signal) {
	signal.Notify(ch, Signals...)
	signal.Stop(early)
	for {
		select {
		case sig := <-early:
			select {
			case ch <- sig:
			default:
			}
		default:
			return
		}
	}
}
