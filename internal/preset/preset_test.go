package preset

import (
	"errors"
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

func TestValidate(t *testing.T) {
	own := errors.New("the preset's own rule")
	cases := []struct {
		name  string
		edit  func(j *blockbench.Job)
		rules func() error
		flag  string // "" accepted; "own": the rule's error
	}{
		{"accepted", func(*blockbench.Job) {}, nil, ""},
		{"no block size needed", func(j *blockbench.Job) { j.BlockSizes = nil }, nil, ""},
		{"a random distribution", func(j *blockbench.Job) {
			j.Distribution = blockbench.Distribution{Kind: blockbench.DistZipf, Param: 1.2}
		}, nil, "--random_distribution"},
		{"strided zones", func(j *blockbench.Job) { j.Zones = blockbench.StridedZones{Size: 1 << 20} }, nil, "--random_distribution"},
		{"verify", func(j *blockbench.Job) { j.Verify = blockbench.VerifyMD5 }, nil, "--verify"},
		{"fdatasync", func(j *blockbench.Job) { j.Fdatasync = 4 }, nil, "--fdatasync"},
		{"fsync_on_close", func(j *blockbench.Job) { j.FsyncOnClose = true }, nil, "--fsync_on_close"},
		{"the preset's rule before the fields", func(j *blockbench.Job) { j.NumJobs = 0 }, func() error { return own }, "own"},
		{"a field", func(j *blockbench.Job) { j.NumJobs = 0 }, nil, "--numjobs"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := blockbench.NewJob("/tmp/x")
			tc.edit(&j)
			err := Validate(&j, "test", tc.rules)
			var ue *result.UsageError
			switch {
			case tc.flag == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.flag == "own" && !errors.Is(err, own):
				t.Fatalf("err = %v, want the preset's rule", err)
			case tc.flag != "" && tc.flag != "own" && (!errors.As(err, &ue) || ue.Flag != tc.flag):
				t.Fatalf("err = %v, want a usage error naming %s", err, tc.flag)
			case ue != nil && strings.HasPrefix(tc.flag, "--") && tc.flag != "--numjobs" && !strings.Contains(ue.Msg, "the test preset"):
				t.Errorf("%q does not name the preset", ue.Msg)
			}
		})
	}
}

func TestMeanLatNs(t *testing.T) {
	j := result.BlockJob{Read: result.BlockDir{Lat: result.LatNs{N: 3, Mean: 100}}, Write: result.BlockDir{Lat: result.LatNs{N: 1, Mean: 500}}}
	if got := MeanLatNs(&j); got != 200 {
		t.Errorf("mean %v, want (3*100+500)/4 = 200", got)
	}
	if got := MeanLatNs(&result.BlockJob{}); got != 0 {
		t.Errorf("mean of no I/O %v, want 0", got)
	}
}
