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

// Levels are ORION's load levels for numDisks spindles: small loads 1, 2,
// ... 5 x num_disks and large loads 1, 2, ... 2 x num_disks, in steps of one.
//
// ORION is closed source and its user guide gives no formula, so the rule is
// read off its own output (see ../shared/reference/block.md section 3):
//   - ORION 11.1.0.7, `-run simple -num_disks 1` (cnblogs.com/hftian/p/
//     15766049, and the same shape in blog.csdn.net/cijinli4767/article/
//     details/100349909): _iops.csv has the columns "Large/Small, 1, 2, 3,
//     4, 5" and _mbps.csv the rows 1 and 2; the summary says "Small Columns:,
//     0", "Large Columns:, 0, 1, 2" and "Total Data Points: 8" (5 + 2, and
//     the idle Small=0 Large=0 point, which clyde does not run).
//   - ORION 19.3 with six LUNs (num_disks defaults to the number of LUNs),
//     `-run simple` estimates "approximately 44 minutes" at 60 s a point:
//     5 x 6 + 2 x 6 + 1 = 43 points, plus the minute 11.1 also adds (8 points
//     were "approximately 9 minutes").
//   - ORION 12.2 with `-num_disks 4` reports its maximum MBPS at Large=7,
//     inside 1 .. 2 x 4.
//
// ORION 12c's -run oltp was seen reaching Small=68 with -num_disks 4, past 5
// x 4: newer versions keep raising the oltp load while IOPS grows. clyde
// runs oltp and dss on these levels, as the 11.2 Performance Tuning Guide
// maps them (-matrix row -num_large 0, -matrix col -num_small 0).
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
