package blockbench_test

import (
	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/fiojob"
)

// The package's tests that read fio's fields run with fio's shape (see
// fioShape in export_test.go).
func init() { blockbench.SetFioShape(fiojob.Shape) }
