package fiojob

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/proc"
)

// A process that leaves the group with setsid and holds the output pipe,
// as fio's job processes do, ends with the command, and the command's
// wait returns.
func TestKillTreeOnCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", "setsid sleep 600 & echo $!; wait")
	killTreeOnCancel(cmd)
	cmd.WaitDelay = 2 * time.Second // a survivor fails the check below, not the test binary
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatal("the command ended by itself")
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(string(out)))
	if perr != nil {
		t.Fatalf("output %q: %v", out, perr)
	}
	// The killed sleep is a zombie of init's until it is reaped.
	for i := 0; proc.Running(pid); i++ {
		if i == 100 {
			t.Fatalf("the setsid child %d outlived the command", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
