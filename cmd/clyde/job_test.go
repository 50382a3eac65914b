package main

import (
	"testing"
	"time"

	"github.com/clydebench/clyde/fsbench"
	"github.com/clydebench/clyde/internal/coord"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

func rankResult(ops int64, elapsed time.Duration) result.FSTestResult {
	lat := latency.New()
	for range ops {
		lat.Record(elapsed / time.Duration(ops))
	}
	return result.FSTestResult{Test: result.SeqCreate, Ran: true, Ops: ops, ElapsedNs: int64(elapsed), Latency: lat.Summary()}
}

func TestJobPhaseFirstAndLastDone(t *testing.T) {
	// Three ranks of 1000 files: rank 1 finishes first at 1s, when rank 0
	// had done 500 and rank 2 250; the last finishes at 4s.
	g := gathered{iteration: 1, test: result.SeqCreate, first: 1, atFirst: []int64{500, 1000, 250},
		ranks: []result.FSTestResult{rankResult(1000, 2*time.Second), rankResult(1000, time.Second), rankResult(1000, 4*time.Second)}}
	g.ranks[0].FlushNs, g.ranks[1].FlushNs = int64(300*time.Millisecond), int64(100*time.Millisecond)
	merged, err := mergeTest(g)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Ops != 3000 || merged.ElapsedNs != int64(4*time.Second) || merged.RatePerSec != 750 || merged.Latency.Count != 3000 || merged.FlushNs != int64(300*time.Millisecond) {
		t.Fatalf("merged %+v", merged)
	}
	p := jobPhase(g, merged)
	if p.LastDoneRate != 750 || p.FirstRank != 1 || p.FirstDoneNs != int64(time.Second) || p.FirstDoneItems != 1750 || p.FirstDoneRate != 1750 {
		t.Fatalf("phase %+v", p)
	}
	peers := []coord.Peer{{Rank: 0, Host: "a", PID: 1}, {Rank: 1, Host: "b", PID: 2}, {Rank: 2, Host: "a", PID: 3}}
	rows := rankRows(g, peers, merged.ElapsedNs, 0)
	if len(rows) != 3 || !rows[1].FirstDone || !rows[2].LastDone || rows[0].FirstDone || rows[2].RatePerSec != 250 || rows[2].Host != "a" {
		t.Fatalf("rank rows %+v", rows)
	}
	hosts := hostRows(g, peers, []string{"a", "b"})
	if len(hosts) != 2 || hosts[0].Ranks != 2 || hosts[0].Items != 2000 || hosts[0].ElapsedNs != int64(4*time.Second) || hosts[1].RatePerSec != 1000 {
		t.Fatalf("host rows %+v", hosts)
	}
}

func TestOptionsHash(t *testing.T) {
	base := fsbench.DefaultOptions()
	cases := []struct {
		name string
		edit func(*fsbench.Options)
		same bool
	}{
		{"mount path", func(o *fsbench.Options) { o.Dir = "/mnt/other" }, true},
		{"machine name and RAM", func(o *fsbench.Options) { o.MachineName, o.RAMMiB = "b", 123 }, true},
		{"unchosen seed", func(o *fsbench.Options) { o.Seed = 99 }, true},
		{"chosen seed", func(o *fsbench.Options) { o.Seed, o.SeedSet = 99, true }, false},
		{"files", func(o *fsbench.Options) { o.FilesK = 3 }, false},
		{"sync", func(o *fsbench.Options) { o.SyncWrites = true }, false},
		{"creation order", func(o *fsbench.Options) { o.CreationOrder = true }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.edit(&o)
			if got := optionsHash(o) == optionsHash(base); got != tc.same {
				t.Fatalf("same hash: %v, want %v", got, tc.same)
			}
		})
	}
}
