package blockpreset_test

import (
	"fmt"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/blockpreset"
)

// ExamplePlanSweep plans the block-size sweep of a random read at depth
// 4: one group per size, 1 KiB to 1 MiB.
func ExamplePlanSweep() {
	j := blockbench.NewJob("/dev/shm/clyde-example.tmp")
	j.RW, j.IODepth = blockbench.RandRead, 4
	s, err := blockpreset.PlanSweep(j)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range s.Plan.Groups {
		fmt.Print(g[0].Name, "; ")
	}
	fmt.Println()
	// Output:
	// 1k randread; 2k randread; 4k randread; 8k randread; 16k randread; 32k randread; 64k randread; 128k randread; 256k randread; 512k randread; 1m randread;
}
