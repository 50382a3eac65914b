package lanes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

var errSignal = errors.New("interrupted by SIGTERM")

// TestInterruptedInWords: the line says what stopped the run and in which
// step, in words: never Go's "context canceled".
func TestInterruptedInWords(t *testing.T) {
	tests := []struct {
		name string
		err  func(cause error) error
		want string
	}{
		{"a phase", func(error) error { return fmt.Errorf("per-char write: %w", context.Canceled) }, "interrupted by SIGTERM during per-char write"},
		{"nested steps", func(error) error {
			return fmt.Errorf("copy 16Mx4 with readwrite: file 2 of 4 (a/b): read: %w", context.Canceled)
		}, "interrupted by SIGTERM during copy 16Mx4 with readwrite: file 2 of 4 (a/b): read"},
		{"the cause itself", func(cause error) error { return fmt.Errorf("before group 2: %w", cause) }, "interrupted by SIGTERM during before group 2"},
		{"nothing more", func(error) error { return context.Canceled }, "interrupted by SIGTERM"},
		// A step wrapped after the stop (keep's partial-result words)
		// leaves the cancellation in the middle (clyde block's fill).
		{"words added after it", func(error) error {
			return fmt.Errorf("%w; the partial result is kept as #8", fmt.Errorf("fill /dev/shm/x/f4: %w", context.Canceled))
		}, "interrupted by SIGTERM during fill /dev/shm/x/f4; the partial result is kept as #8"},
		{"joined with a cleanup's error", func(error) error {
			return errors.Join(fmt.Errorf("fill f: %w", context.Canceled), errors.New("remove f: busy"))
		}, "interrupted by SIGTERM during fill f\nremove f: busy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errSignal)
			err := Interrupted(ctx, tc.err(errSignal))
			if err.Error() != tc.want {
				t.Errorf("%q, want %q", err.Error(), tc.want)
			}
			if strings.Contains(err.Error(), "context canceled") {
				t.Errorf("%q has Go's words", err.Error())
			}
			if !errors.Is(err, errSignal) || !errors.Is(err, context.Canceled) {
				t.Errorf("%v matches neither its cause nor context.Canceled", err)
			}
		})
	}
}
