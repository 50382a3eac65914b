package orion_test

import (
	"fmt"

	"github.com/clydebench/clyde/orion"
)

// ORION's simple level for one disk: small loads 1..5 alone, then large
// loads 1..2 alone.
func ExampleMatrix() {
	pts, _ := orion.Matrix(orion.MatrixBasic, 1, 0, 0)
	fmt.Println(pts)
	small, large := orion.Levels(4)
	fmt.Println(len(small), len(large))
	// Output:
	// [Small=1 Large=0 Small=2 Large=0 Small=3 Large=0 Small=4 Large=0 Small=5 Large=0 Small=0 Large=1 Small=0 Large=2]
	// 20 8
}
