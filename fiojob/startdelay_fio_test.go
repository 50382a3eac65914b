package fiojob

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStartDelayAgainstFio holds clyde's startdelay draws to the order in
// which fio 3.33 starts the same jobs: fio's latency log with
// log_unix_epoch=1 stamps each job's first I/O in wall-clock ms, and
// every two jobs whose draws are far enough apart to tell (300 ms, over
// fio's start loop and its thread start) must start in the order clyde's
// draws give them, unless fio released them together (a tie). The draws cover randseed, tausworthe64, clones, and a
// range from 0 (whose clones draw from their job's draw up).
func TestStartDelayAgainstFio(t *testing.T) {
	fio := fioBinary(t)
	const jobs = `[a]
[b]
numjobs=3
[c]
randseed=1234
[d]
startdelay=0-3
numjobs=3
[e]
random_generator=tausworthe64
`
	global := "[global]\nioengine=null\nsize=64k\nrw=read\nstartdelay=100ms-3\n"
	p, err := compile(t, global+jobs, nil, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want []time.Duration
	for _, g := range p.Groups {
		for _, w := range g {
			want = append(want, w.StartDelay)
		}
	}
	// fio's start loop releases every job whose delay has passed when it
	// wakes; on a busy machine it can wake late and release two jobs of
	// different draws together, stamped within a few ms in either order.
	// Such a pair is a tie, not an order; a run with too few ordered pairs
	// is run again.
	const tie = 50 // ms
	for try := 1; ; try++ {
		started := fioStarts(t, fio, global+"write_lat_log=sd\nlog_unix_epoch=1\n"+jobs, len(want))
		pairs, wrong := 0, []string(nil)
		for i := range want {
			for k := i + 1; k < len(want); k++ {
				if d := want[i] - want[k]; d > -300*time.Millisecond && d < 300*time.Millisecond {
					continue
				}
				if gap := started[i] - started[k]; gap > -tie && gap < tie {
					continue
				}
				pairs++
				if (want[i] < want[k]) != (started[i] < started[k]) {
					wrong = append(wrong, fmt.Sprintf("jobs %d and %d: clyde draws %v and %v, fio started them at %d and %d ms", i+1, k+1, want[i], want[k], started[i], started[k]))
				}
			}
		}
		for _, w := range wrong {
			t.Error(w)
		}
		if pairs >= 10 || len(wrong) > 0 {
			return
		}
		if try == 3 {
			t.Fatalf("only %d pairs of draws far enough apart, and started apart by fio, to compare in %d runs (%v)", pairs, try, want)
		}
		t.Logf("run %d: %d ordered pairs (fio released jobs together); running fio again", try, pairs)
	}
}

// fioStarts runs the job file with fio and returns when each job's first
// I/O was logged, in Unix ms.
func fioStarts(t *testing.T, fio, file string, n int) []int64 {
	t.Helper()
	dir := t.TempDir()
	if _, err := runFio(fio, dir, file, false); err != nil {
		t.Fatal(err)
	}
	started := make([]int64, n)
	for i := range started {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("sd_lat.%d.log", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		ms, _, _ := strings.Cut(string(data), ",")
		if started[i], err = strconv.ParseInt(strings.TrimSpace(ms), 10, 64); err != nil {
			t.Fatalf("job %d's log: %v", i+1, err)
		}
	}
	return started
}
