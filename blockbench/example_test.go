package blockbench_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/fiojob"
	"github.com/clydebench/clyde/result"
)

// ExampleRun reads a file clyde creates and fills (1 MiB), once through at
// random, in 4 KiB blocks; the file and its marker are removed afterwards.
func ExampleRun() {
	dir, err := os.MkdirTemp(".", "example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(dir)
	j := blockbench.NewJob(filepath.Join(dir, "f"))
	j.RW, j.Size, j.TimeBased, j.Runtime = blockbench.RandRead, 1<<20, false, 0 // one pass over 1 MiB
	j.Shape = fiojob.Shape                                                      // fio's fields too: its samples, distributions and job options
	var b *result.Block
	b, err = blockbench.Run(context.Background(), j)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := b.Jobs[0].Read
	// total_ios, io_bytes, clat_ns percentiles; the engine that ran, in
	// clyde's config and in fio's job options.
	fmt.Println(r.TotalIOs, r.IOBytes, len(r.Clat.Percentile) > 0, b.Jobs[0].Config.IOEngine, b.Jobs[0].Options.Get("ioengine"))
	left, _ := os.ReadDir(dir)
	fmt.Println("left behind:", len(left))
	// Output:
	// 256 1048576 true psync psync
	// left behind: 0
}

// ExampleRunPlan runs two workloads at the same time on one file, as fio
// runs the jobs of one group: 4 KiB random reads and 64 KiB sequential
// reads, each reported on its own and summed.
func ExampleRunPlan() {
	dir, err := os.MkdirTemp(".", "example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(dir)
	small := blockbench.Workload{Name: "small", Filename: filepath.Join(dir, "f"), RW: blockbench.RandRead, BS: 4 << 10,
		Size: 4 << 20, IODepth: 1, NumJobs: 1, IOEngine: blockbench.EnginePsync, Runtime: 200 * time.Millisecond, TimeBased: true,
		Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}, Seed: 1}
	large := small
	large.Name, large.RW, large.BS = "large", blockbench.Read, 64<<10
	b, err := blockbench.RunPlan(context.Background(), blockbench.Plan{Groups: []blockbench.Group{{small, large}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := b.Groups[0]
	fmt.Println(len(b.Jobs), b.Jobs[0].Config.BSBytes, b.Jobs[1].Config.BSBytes,
		g.Read.TotalIOs == b.Jobs[0].Read.TotalIOs+b.Jobs[1].Read.TotalIOs)
	// Output: 2 4096 65536 true
}

// ExampleRun_refused shows a refusal: nothing is created, and the error is
// a *result.UsageError naming the flag.
func ExampleRun_refused() {
	j := blockbench.NewJob("f")
	j.IODepth = 0
	_, err := blockbench.Run(context.Background(), j)
	var ue *result.UsageError
	if errors.As(err, &ue) {
		fmt.Println("refused:", ue.Flag)
	}
	// Output: refused: --iodepth
}
