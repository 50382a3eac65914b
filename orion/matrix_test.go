package orion

import (
	"slices"
	"testing"
)

// The load levels for -num_disks 1, 2 and 4, and the points of each matrix
// type. The rule (small loads 1..5 x num_disks, large loads 1..2 x
// num_disks) is ORION 11.1's for one disk and inferred beyond it (see Levels
// and docs/orion-load-levels.md; TestLevelsAgainstORIONOutputs checks it
// against ORION's own output). The matrix types follow `orion -help`
// (11.2.0.4, quoted at blog.csdn.net/msdnchina/article/details/52357360).
func TestMatrixLevels(t *testing.T) {
	pts := func(ps ...int) []Point {
		var out []Point
		for i := 0; i < len(ps); i += 2 {
			out = append(out, Point{ps[i], ps[i+1]})
		}
		return out
	}
	cases := []struct {
		name         string
		matrix       string
		disks        int
		small, large int
		want         []Point
	}{
		{"basic 1 disk (simple)", MatrixBasic, 1, 0, 0, pts(1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0, 1, 0, 2)},
		{"basic 2 disks", MatrixBasic, 2, 0, 0, pts(1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0, 9, 0, 10, 0, 0, 1, 0, 2, 0, 3, 0, 4)},
		{"detailed 1 disk (normal)", MatrixDetailed, 1, 0, 0, pts(
			1, 0, 2, 0, 3, 0, 4, 0, 5, 0,
			0, 1, 1, 1, 2, 1, 3, 1, 4, 1, 5, 1,
			0, 2, 1, 2, 2, 2, 3, 2, 4, 2, 5, 2)},
		{"point", MatrixPoint, 4, 12, 3, pts(12, 3)},
		{"col at num_small 3, 2 disks", MatrixCol, 2, 3, 0, pts(3, 0, 3, 1, 3, 2, 3, 3, 3, 4)},
		{"col without small I/O (dss), 1 disk", MatrixCol, 1, 0, 0, pts(0, 1, 0, 2)},
		{"row at num_large 2, 1 disk", MatrixRow, 1, 0, 2, pts(0, 2, 1, 2, 2, 2, 3, 2, 4, 2, 5, 2)},
		{"row without large I/O (oltp), 1 disk", MatrixRow, 1, 0, 0, pts(1, 0, 2, 0, 3, 0, 4, 0, 5, 0)},
		{"max 2x1", MatrixMax, 4, 2, 1, pts(1, 0, 2, 0, 0, 1, 1, 1, 2, 1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Matrix(tc.matrix, tc.disks, tc.small, tc.large)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
		})
	}
	for _, disks := range []int{1, 2, 4} {
		small, large := Levels(disks)
		if len(small) != 5*disks || small[0] != 1 || small[len(small)-1] != 5*disks {
			t.Errorf("%d disks: small loads %v, want 1..%d", disks, small, 5*disks)
		}
		if len(large) != 2*disks || large[0] != 1 || large[len(large)-1] != 2*disks {
			t.Errorf("%d disks: large loads %v, want 1..%d", disks, large, 2*disks)
		}
		basic, _ := Matrix(MatrixBasic, disks, 0, 0)
		detailed, _ := Matrix(MatrixDetailed, disks, 0, 0)
		if len(basic) != 7*disks || len(detailed) != (5*disks+1)*(2*disks+1)-1 {
			t.Errorf("%d disks: %d basic and %d detailed points, want %d and %d", disks, len(basic), len(detailed),
				7*disks, (5*disks+1)*(2*disks+1)-1)
		}
	}
}

func TestMatrixRefusals(t *testing.T) {
	for _, tc := range []struct{ matrix, flag string }{{"cube", "-matrix"}, {MatrixPoint, "-num_small"}, {MatrixMax, "-num_small"}} {
		if _, err := Matrix(tc.matrix, 1, 0, 0); !isUsageFor(err, tc.flag) {
			t.Errorf("%s: err %v, want a usage error naming %s", tc.matrix, err, tc.flag)
		}
	}
}

func TestAxes(t *testing.T) {
	pts, _ := Matrix(MatrixBasic, 1, 0, 0)
	small, large := axes(pts)
	if !slices.Equal(small, []int{0, 1, 2, 3, 4, 5}) || !slices.Equal(large, []int{0, 1, 2}) {
		t.Errorf("axes %v x %v, want ORION's 0..5 x 0..2", small, large)
	}
}
