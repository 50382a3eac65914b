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
// draws give them. The draws cover randseed, tausworthe64, clones, and a
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
	dir := t.TempDir()
	if _, err := runFio(fio, dir, global+"write_lat_log=sd\nlog_unix_epoch=1\n"+jobs, false); err != nil {
		t.Fatal(err)
	}
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
	started := make([]int64, len(want))
	for i := range want {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("sd_lat.%d.log", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		ms, _, _ := strings.Cut(string(data), ",")
		if started[i], err = strconv.ParseInt(strings.TrimSpace(ms), 10, 64); err != nil {
			t.Fatalf("job %d's log: %v", i+1, err)
		}
	}
	pairs := 0
	for i := range want {
		for k := i + 1; k < len(want); k++ {
			if d := want[i] - want[k]; d > -300*time.Millisecond && d < 300*time.Millisecond {
				continue
			}
			pairs++
			if (want[i] < want[k]) != (started[i] < started[k]) {
				t.Errorf("jobs %d and %d: clyde draws %v and %v, fio started them at %d and %d ms", i+1, k+1, want[i], want[k], started[i], started[k])
			}
		}
	}
	if pairs < 10 {
		t.Errorf("only %d pairs of draws far enough apart to compare (%v)", pairs, want)
	}
}
