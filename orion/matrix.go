package orion

import (
	"fmt"
	"slices"

	"github.com/clydebench/clyde/result"
)

// Point is one ORION data point: Small outstanding small I/Os and Large
// outstanding large I/Os (or, with -type seq, Large sequential streams) at
// the same time.
type Point struct {
	Small, Large int
}

func (p Point) String() string { return fmt.Sprintf("Small=%d Large=%d", p.Small, p.Large) }

// The matrix types of -matrix.
const (
	MatrixBasic    = "basic"
	MatrixDetailed = "detailed"
	MatrixPoint    = "point"
	MatrixCol      = "col"
	MatrixRow      = "row"
	MatrixMax      = "max"
)

// Matrices lists the -matrix values.
var Matrices = []string{MatrixBasic, MatrixDetailed, MatrixPoint, MatrixCol, MatrixRow, MatrixMax}

// Levels are the load levels clyde tests for numDisks spindles: small loads
// 1, 2, ... 5 x num_disks and large loads 1, 2, ... 2 x num_disks, in steps
// of one. docs/orion-load-levels.md says what each part is read from.
//
// ORION is closed source. Neither its -help nor Oracle's guide gives the
// levels, only that -num_disks (default: the number of LUNs) sets them. So
// the rule is read off ORION's own output, and only the one-disk case has
// been seen. ORION 11.1.0.7 `-run simple -num_disks 1` wrote _iops.csv with
// the columns "Large/Small, 1, 2, 3, 4, 5" and _mbps.csv with the rows 1 and
// 2 (www.cnblogs.com/hftian/p/15766049). A second 11.1 one-disk run wrote CSV
// files of the same sizes (blog.csdn.net/cijinli4767/article/details/
// 100349909). Both are kept in testdata/reference, and
// TestLevelsAgainstORIONOutputs checks them against this rule.
//
// Inferred, not seen:
//   - that the levels grow linearly with num_disks (5 x N, 2 x N) in steps
//     of one;
//   - that -run oltp and dss use the same levels. ORION 11.2.0.4 estimated 24
//     minutes for -run oltp on three LUNs, where these levels give 15 points.
//     An ORION 12c oltp summary lists "Small Columns:, 1, 2, ... 20" with an
//     unknown number of LUNs. So newer versions may raise the oltp load
//     further; clyde keeps ORION 11.1's levels. Following the 11.2
//     Performance Tuning Guide, clyde runs oltp as -matrix row -num_large 0
//     and dss as -matrix col -num_small 0.
func Levels(numDisks int) (small, large []int) {
	return upTo(5 * numDisks), upTo(2 * numDisks)
}

func upTo(n int) []int {
	out := make([]int, 0, max(n, 0))
	for i := 1; i <= n; i++ {
		out = append(out, i)
	}
	return out
}

// Matrix lists the data points of a -matrix type, in the order they run,
// following ORION's -help: "basic - test the first row and the first column;
// detailed - test the entire matrix; point - test at load level num_small,
// num_large; col - varying large IO load with num_small small IOs; row -
// varying small IO load with num_large large IOs; max - test varying loads
// up to num_small, num_large". The first row is no large load and the first
// column no small load; the idle point (0, 0) is left out. basic runs its
// row (small loads) before its column, as -run simple "tests random 8K small
// IOs at various loads, then random 1M large IOs".
func Matrix(kind string, numDisks, numSmall, numLarge int) ([]Point, error) {
	small, large := Levels(numDisks)
	var pts []Point
	grid := func(smalls, larges []int) {
		for _, l := range append([]int{0}, larges...) {
			for _, s := range append([]int{0}, smalls...) {
				if s > 0 || l > 0 {
					pts = append(pts, Point{s, l})
				}
			}
		}
	}
	switch kind {
	case MatrixBasic:
		for _, s := range small {
			pts = append(pts, Point{s, 0})
		}
		for _, l := range large {
			pts = append(pts, Point{0, l})
		}
	case MatrixDetailed:
		grid(small, large)
	case MatrixPoint:
		if numSmall == 0 && numLarge == 0 {
			return nil, result.Usagef("-num_small", "-matrix point needs -num_small or -num_large above 0")
		}
		pts = []Point{{numSmall, numLarge}}
	case MatrixCol:
		for _, l := range append([]int{0}, large...) {
			if numSmall > 0 || l > 0 {
				pts = append(pts, Point{numSmall, l})
			}
		}
	case MatrixRow:
		for _, s := range append([]int{0}, small...) {
			if s > 0 || numLarge > 0 {
				pts = append(pts, Point{s, numLarge})
			}
		}
	case MatrixMax:
		if numSmall == 0 && numLarge == 0 {
			return nil, result.Usagef("-num_small", "-matrix max needs -num_small or -num_large above 0")
		}
		grid(upTo(numSmall), upTo(numLarge))
	default:
		return nil, result.Usagef("-matrix", "unknown matrix %q; accepted: basic, detailed, point, col, row, max", kind)
	}
	return pts, nil
}

// axes are the loads that appear in pts, sorted: the small loads (the
// matrix's columns) and the large loads (its rows), 0 included when a point
// has it.
func axes(pts []Point) (small, large []int) {
	for _, p := range pts {
		if !slices.Contains(small, p.Small) {
			small = append(small, p.Small)
		}
		if !slices.Contains(large, p.Large) {
			large = append(large, p.Large)
		}
	}
	slices.Sort(small)
	slices.Sort(large)
	return small, large
}
