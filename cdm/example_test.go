package cdm_test

import (
	"fmt"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/cdm"
)

// ExamplePlan plans CrystalDiskMark's Real World set with three passes on
// a new file: each test read, then written, an uncounted warm-up before
// its passes, all made in a private run directory, uncached.
func ExamplePlan() {
	j := blockbench.NewJob("/nonexistent/clyde-example.tmp")
	o := cdm.DefaultOptions()
	o.Preset, o.Passes = cdm.Real, 3
	pl, err := cdm.Plan(j, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, g := range pl.Plan.Groups {
		if pl.Plan.Labels[i].Pass <= 1 {
			fmt.Println(g[0].Name, g[0].IODepth, g[0].Direct)
		}
	}
	fmt.Println(len(pl.Plan.Groups), "groups; private directory:", pl.Plan.PrivateDir)
	// Output:
	// SEQ1M Q1T1 read (warm-up) 1 true
	// SEQ1M Q1T1 read pass 1 1 true
	// RND4K Q1T1 read (warm-up) 1 true
	// RND4K Q1T1 read pass 1 1 true
	// SEQ1M Q1T1 write (warm-up) 1 true
	// SEQ1M Q1T1 write pass 1 1 true
	// RND4K Q1T1 write (warm-up) 1 true
	// RND4K Q1T1 write pass 1 1 true
	// 16 groups; private directory: true
}
