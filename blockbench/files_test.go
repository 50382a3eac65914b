package blockbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// fileSetWorkload is a workload of n new files in dir, psync, 4k blocks.
func fileSetWorkload(dir string, n int, rw RW, size int64) Workload {
	var names []string
	for i := range n {
		names = append(names, filepath.Join(dir, fmt.Sprintf("f.%d", i)))
	}
	return Workload{Name: "set", Files: &FileSet{Names: names}, RW: rw, RWMixRead: 50, BS: 4 << 10, Size: size,
		IODepth: 1, NumJobs: 1, IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 7, RandomMap: true, Loops: 1}
}

// perFile is the job's files as path: read I/Os, write I/Os.
func perFile(j result.BlockJob) map[string][2]int64 {
	out := map[string][2]int64{}
	for _, f := range j.Files {
		out[filepath.Base(f.Path)] = [2]int64{f.ReadIOs, f.WriteIOs}
	}
	return out
}

// TestFileSetSplitsTheJob runs fio's file sets as fio 3.33 counts them:
// size= split over the files (the first files a block more while the
// remainder lasts), every file done once per pass, whatever the service;
// a filesize per file; a sequential service that keeps to one file while
// it lasts.
func TestFileSetSplitsTheJob(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Workload)
		want map[string][2]int64
		ios  int64
	}{
		{"roundrobin read", func(w *Workload) {}, map[string][2]int64{"f.0": {4, 0}, "f.1": {4, 0}, "f.2": {4, 0}, "f.3": {4, 0}}, 16},
		{"random service randread", func(w *Workload) { w.RW = RandRead; w.Files.Service.Kind = ServiceRandom },
			map[string][2]int64{"f.0": {4, 0}, "f.1": {4, 0}, "f.2": {4, 0}, "f.3": {4, 0}}, 16},
		{"part of a block", func(w *Workload) { w.Size = 72 << 10; w.RW = Write },
			map[string][2]int64{"f.0": {0, 4}, "f.1": {0, 4}, "f.2": {0, 4}, "f.3": {0, 4}}, 16},
		{"remainder to the first files", func(w *Workload) { w.Size, w.BS = 67, 1 },
			map[string][2]int64{"f.0": {17, 0}, "f.1": {17, 0}, "f.2": {17, 0}, "f.3": {16, 0}}, 67},
		{"filesize", func(w *Workload) { w.Size = 0; w.Files.Size = FileSize{Low: 8 << 10, High: 8 << 10} },
			map[string][2]int64{"f.0": {2, 0}, "f.1": {2, 0}, "f.2": {2, 0}, "f.3": {2, 0}}, 8},
		{"filesize drawn", func(w *Workload) {
			w.Size = 0
			w.Files.Size = FileSize{Low: 4 << 10, High: 64 << 10, Draws: []int64{4 << 10, 12 << 10, 60 << 10, 8 << 10}}
		}, map[string][2]int64{"f.0": {1, 0}, "f.1": {3, 0}, "f.2": {15, 0}, "f.3": {2, 0}}, 21},
		{"size below the files", func(w *Workload) {
			w.Size = 8 << 10
			w.Files.Size = FileSize{Low: 16 << 10, High: 16 << 10}
			w.Files.Service.Kind = ServiceSequential
		}, map[string][2]int64{"f.0": {2, 0}, "f.1": {0, 0}, "f.2": {0, 0}, "f.3": {0, 0}}, 2},
		{"loops", func(w *Workload) { w.Loops = 3 }, map[string][2]int64{"f.0": {12, 0}, "f.1": {12, 0}, "f.2": {12, 0}, "f.3": {12, 0}}, 48},
		// size= below the files' sum ends the job early, so the order of
		// the picks shows in what each file took.
		{"roundrobin:2", func(w *Workload) {
			w.Size, w.Files.Size = 16<<10, FileSize{Low: 16 << 10, High: 16 << 10}
			w.Files.Service = FileService{Kind: ServiceRoundRobin, Run: 2}
		}, map[string][2]int64{"f.0": {2, 0}, "f.1": {2, 0}, "f.2": {0, 0}, "f.3": {0, 0}}, 4},
		{"openfiles=1 keeps to one file", func(w *Workload) {
			w.Size, w.Files.Size, w.Files.Open = 16<<10, FileSize{Low: 16 << 10, High: 16 << 10}, 1
		}, map[string][2]int64{"f.0": {4, 0}, "f.1": {0, 0}, "f.2": {0, 0}, "f.3": {0, 0}}, 4},
		{"openfiles=2 alternates two", func(w *Workload) {
			w.Size, w.Files.Size, w.Files.Open = 16<<10, FileSize{Low: 16 << 10, High: 16 << 10}, 2
		}, map[string][2]int64{"f.0": {2, 0}, "f.1": {2, 0}, "f.2": {0, 0}, "f.3": {0, 0}}, 4},
		// fio's do_io counts a pass's bytes for an engine that queues:
		// io_uring's passes end at size= and start over at the next file
		// (file_service_file was closed, next_file moved on), psync's run
		// until the job's bytes are issued.
		{"psync passes", func(w *Workload) {
			w.Size, w.Loops, w.Files.Size = 4<<10, 3, FileSize{Low: 8 << 10, High: 8 << 10}
			w.Files.Service.Kind = ServiceSequential
		}, map[string][2]int64{"f.0": {2, 0}, "f.1": {1, 0}, "f.2": {0, 0}, "f.3": {0, 0}}, 3},
		{"io_uring passes", func(w *Workload) {
			w.Size, w.Loops, w.Files.Size = 4<<10, 3, FileSize{Low: 8 << 10, High: 8 << 10}
			w.Files.Service.Kind, w.IOEngine = ServiceSequential, EngineIOUring
		}, map[string][2]int64{"f.0": {1, 0}, "f.1": {1, 0}, "f.2": {1, 0}, "f.3": {0, 0}}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w := fileSetWorkload(dir, 4, Read, 64<<10)
			tc.edit(&w)
			if w.IOEngine == EngineIOUring && EngineAvailable(EngineIOUring) != nil {
				clydetest.Skip(t, "no io_uring here")
			}
			res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
			if err != nil {
				t.Fatal(err)
			}
			j := res.Jobs[0]
			if got := perFile(j); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("per file %v, want %v", got, tc.want)
			}
			if n := j.Read.TotalIOs + j.Write.TotalIOs; n != tc.ios {
				t.Errorf("%d I/Os, want %d", n, tc.ios)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("left in the directory: %v", ents)
			}
		})
	}
}

func TestFileSetRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, want string
		edit       func(*Workload)
	}{
		{"twice", "listed twice", func(w *Workload) { w.Files.Names[1] = w.Files.Names[0] }},
		{"range backwards", "not a size or a range", func(w *Workload) { w.Files.Size = FileSize{Low: 8 << 10, High: 4 << 10} }},
		{"fsync", "not supported with several files", func(w *Workload) { w.Fsync = 4 }},
		{"verify", "not supported with several files", func(w *Workload) { w.RW = Write; w.Verify = VerifyCRC32C }},
		{"zoned service", "zipf, pareto or normal", func(w *Workload) {
			w.Files.Service = FileService{Kind: ServiceRandom, Dist: Distribution{Kind: DistZoned}}
		}},
		{"no size", "gives no size", func(w *Workload) { w.Size = 0 }},
		{"filename too", "names its files itself", func(w *Workload) { w.Filename = "x" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := fileSetWorkload(dir, 3, Read, 48<<10)
			tc.edit(&w)
			_, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
			if !result.IsUsage(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want a usage error with %q", err, tc.want)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a refusal left %v", ents)
	}
}

// TestFileSetKeepsAnExistingSize: an existing file within a filesize
// range keeps its size (setup_files), one outside it gets a draw.
func TestFileSetKeepsAnExistingSize(t *testing.T) {
	dir := t.TempDir()
	w := fileSetWorkload(dir, 2, Read, 0)
	if err := os.WriteFile(w.Files.Names[0], make([]byte, 24<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Files.Size = FileSize{Low: 16 << 10, High: 32 << 10, Draws: []int64{20 << 10, 28 << 10}}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true, AllowSparse: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := perFile(res.Jobs[0]); got["f.0"][0] != 6 || got["f.1"][0] != 5 {
		t.Errorf("per file %v: want f.0's own 24k (6 blocks) and f.1 the first draw, 20k (5)", got)
	}
}

// TestFileSetZipfService: a zipf service over the files draws fio's
// unhashed ranks from rand_off, here the center: with center 0.5 the hot
// file is the middle one, not the first.
func TestFileSetZipfService(t *testing.T) {
	w := fileSetWorkload(t.TempDir(), 4, RandRead, 256<<10)
	w.RandomMap = false
	w.Files.Service = FileService{Kind: ServiceRandom, Dist: Distribution{Kind: DistZipf, Param: 1.2, Center: 0.5, HasCenter: true}}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	got := perFile(res.Jobs[0])
	if got["f.2"][0] <= got["f.0"][0]+got["f.1"][0]+got["f.3"][0] {
		t.Errorf("per file %v: want most reads on f.2, where rank 0 lands", got)
	}
}

// TestFileSetDropsOnReopen: fio invalidates a file it opens again for a
// pass; the first opens are the group's invalidate.
func TestFileSetDropsOnReopen(t *testing.T) {
	if !osio.CanAdviseAccess {
		clydetest.Skip(t, "no posix_fadvise here: clyde cannot drop a file's cache")
	}
	var drops atomic.Int64
	old := dropCache
	dropCache = func(f osio.File) error { drops.Add(1); return old(f) }
	t.Cleanup(func() { dropCache = old })
	w := fileSetWorkload(t.TempDir(), 3, Read, 48<<10)
	w.Loops, w.Invalidate = 3, true
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true}); err != nil {
		t.Fatal(err)
	}
	if n := drops.Load(); n != 6 {
		t.Errorf("%d drops, want each of 3 files on reopening for the 2nd and the 3rd pass", n)
	}
}
