package fsbench_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/clydebench/clyde/fsbench"
	"github.com/clydebench/clyde/result"
)

// ExampleRun runs a small suite: an 8 MiB file without the per-char tests,
// and 1024 empty files. Run fills in the rest (RAM, seed, host name), works in
// a private directory inside Dir and removes it at the end.
func ExampleRun() {
	dir, err := os.MkdirTemp(".", "example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(dir)
	o := fsbench.DefaultOptions()
	o.Dir, o.SizeMiB, o.RAMMiB, o.FilesK, o.ByteIOMiB = dir, 8, 0, 1, 0
	var fs *result.FS
	fs, err = fsbench.Run(context.Background(), o)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range fs.Runs[0].Tests {
		if t.Ran {
			fmt.Printf("%s in %s, %d operations\n", t.Name, t.RateUnit, t.Ops)
		}
	}
	left, _ := os.ReadDir(dir)
	fmt.Println("left behind:", len(left))
	// Output:
	// put_block in KiB/s, 1024 operations
	// rewrite in KiB/s, 1024 operations
	// get_block in KiB/s, 1024 operations
	// seeks in seeks/s, 8192 operations
	// seq_create in files/s, 1024 operations
	// seq_stat in files/s, 1024 operations
	// seq_del in files/s, 1024 operations
	// ran_create in files/s, 1024 operations
	// ran_stat in files/s, 1024 operations
	// ran_del in files/s, 1024 operations
	// left behind: 0
}

// ExampleRun_refused shows a refusal: nothing is created, and the error is
// a *result.UsageError naming the flag.
func ExampleRun_refused() {
	o := fsbench.DefaultOptions()
	o.Dir, o.SizeMiB = ".", -5
	_, err := fsbench.Run(context.Background(), o)
	var ue *result.UsageError
	if errors.As(err, &ue) {
		fmt.Println("refused:", ue.Flag)
	}
	// Output: refused: -s
}
