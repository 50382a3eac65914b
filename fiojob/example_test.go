package fiojob_test

import (
	"fmt"

	"github.com/clydebench/clyde/fiojob"
)

// A job file compiles to a plan: jobs run together until one has
// stonewall.
func ExampleCompile() {
	text := `
[global]
filename=/mnt/ssd/clyde.tmp
size=1g
direct=1
runtime=30
time_based

[seq-write]
rw=write
bs=1m

[rand-read]
stonewall
rw=randread
ioengine=libaio
iodepth=32

[rand-read-2]
rw=randread
`
	f, err := fiojob.Parse("ssd.fio", []byte(text), fiojob.Env{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := fiojob.Compile(f, fiojob.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, g := range p.Groups {
		for _, w := range g {
			fmt.Printf("group %d: %s %s bs=%d iodepth=%d %s\n", i, w.Name, w.RW, w.BS, w.IODepth, w.IOEngine)
		}
	}
	// An option clyde does not run is refused with its line.
	f, _ = fiojob.Parse("bad.fio", []byte("[a]\nverify_async=2\n"), fiojob.Env{})
	_, err = fiojob.Compile(f, fiojob.Options{})
	fmt.Println(err)
	// Output:
	// group 0: seq-write write bs=1048576 iodepth=1 psync
	// group 1: rand-read randread bs=4096 iodepth=32 libaio
	// group 1: rand-read-2 randread bs=4096 iodepth=1 psync
	// bad.fio:2: option verify_async is not supported: clyde verifies on the worker's own thread, fio's default
}
