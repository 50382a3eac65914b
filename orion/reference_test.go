package orion

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// referenceRun is one of ORION's own outputs kept in testdata/reference
// (see docs/orion-load-levels.md): the command it ran, how many LUNs its
// .lun file listed, and its output, section by section ("iops.csv",
// "mbps.csv", "ls -l", ...).
type referenceRun struct {
	file     string
	source   string
	command  []string
	luns     int
	sections map[string][]string
}

func readReference(path string) (referenceRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return referenceRun{}, err
	}
	defer f.Close()
	r := referenceRun{file: filepath.Base(path), sections: map[string][]string{}}
	var section string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			section, _, _ = strings.Cut(strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --"), " (")
			continue
		}
		if section != "" {
			r.sections[section] = append(r.sections[section], line)
			continue
		}
		key, value, ok := strings.Cut(line, ": ")
		switch {
		case !ok:
		case key == "source":
			r.source = value
		case key == "command":
			r.command = strings.Fields(value)
		case key == "luns":
			if r.luns, err = strconv.Atoi(value); err != nil {
				return r, fmt.Errorf("%s: luns: %w", path, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	if r.source == "" || len(r.command) == 0 || r.luns < 1 || len(r.sections) == 0 {
		return r, fmt.Errorf("%s: needs a source, a command, luns and ORION's output", path)
	}
	return r, nil
}

// plannedPoints is what clyde orion plans for ORION's command line cmd on
// luns LUNs: the flags through Options and its mapping, as a run does.
func plannedPoints(cmd []string, luns int) ([]Point, error) {
	if len(cmd) < 2 || cmd[0] != "-run" {
		return nil, fmt.Errorf("%v: want -run first", cmd)
	}
	o := DefaultOptions(cmd[1])
	for i := 2; i+1 < len(cmd); i += 2 {
		flag, v := cmd[i], cmd[i+1]
		n, _ := strconv.Atoi(v)
		switch flag {
		case "-testname":
			o.TestName = v
		case "-num_disks":
			o.NumDisks = n
		case "-matrix":
			o.Matrix = v
		case "-num_small":
			o.NumSmall = n
		case "-num_large":
			o.NumLarge = n
		default:
			return nil, fmt.Errorf("flag %s: not read by this test", flag)
		}
	}
	m, err := o.mapping()
	if err != nil {
		return nil, err
	}
	if o.NumDisks == 0 {
		o.NumDisks = luns
	}
	return Matrix(m.matrix, o.NumDisks, m.numSmall, m.numLarge)
}

// orionCSV reads one of ORION's matrices: the loads of its header (after
// "Large/Small"), and the cells that hold a figure, as points. A CSV whose
// rows are small loads (_iops.csv, _lat.csv) and one whose rows are large
// loads (_mbps.csv) read alike: the header is the small loads, each row
// starts with its large load.
func orionCSV(lines []string) (header []int, cells []Point, err error) {
	for i, line := range lines {
		fields := strings.Split(line, ",")
		nums := make([]int, 0, len(fields))
		if i == 0 {
			if strings.TrimSpace(fields[0]) != "Large/Small" {
				return nil, nil, fmt.Errorf("header %q", line)
			}
			for _, f := range fields[1:] {
				n, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil {
					return nil, nil, fmt.Errorf("header %q: %w", line, err)
				}
				nums = append(nums, n)
			}
			header = nums
			continue
		}
		large, err := strconv.Atoi(strings.TrimSpace(fields[0]))
		if err != nil {
			return nil, nil, fmt.Errorf("row %q: %w", line, err)
		}
		for k, f := range fields[1:] {
			if strings.TrimSpace(f) == "" {
				continue
			}
			if k >= len(header) {
				return nil, nil, fmt.Errorf("row %q has more cells than the header", line)
			}
			cells = append(cells, Point{Small: header[k], Large: large})
		}
	}
	return header, cells, nil
}

// orionCSVSizes are the bytes of the _iops.csv (and _lat.csv) and _mbps.csv
// ORION 11.1 writes for the points pts: "Large/Small" and each row's load in
// 11 characters, then 8 (", " and a figure right-aligned in 6) per load of
// the header and per figure of a row, and a newline. _iops.csv has a row
// per large load, 0 included, and a column per small load above 0; _mbps.csv
// a row per large load above 0 and a column per small load, 0 included. A
// row holds the figures of the points that ran at its load.
func orionCSVSizes(pts []Point) (iops, mbps int) {
	small, large := axes(pts)
	smallAbove0 := slices.DeleteFunc(slices.Clone(small), func(s int) bool { return s == 0 })
	iops = 11 + 8*len(smallAbove0) + 1
	mbps = 11 + 8*len(small) + 1
	for _, l := range large {
		var smallIO, largeIO int
		for _, p := range pts {
			if p.Large == l && p.Small > 0 {
				smallIO++
			}
			if p.Large == l && l > 0 {
				largeIO++
			}
		}
		iops += 11 + 8*smallIO + 1
		if l > 0 {
			mbps += 11 + 8*largeIO + 1
		}
	}
	return iops, mbps
}

// TestLevelsAgainstORIONOutputs reads the outputs of real ORION runs kept in
// testdata/reference and checks that clyde plans the same data points for
// the same command: the loads of ORION's CSV headers and rows, and every
// cell that holds a figure, or, where only a listing of the files is
// quoted, the CSV sizes those points give.
func TestLevelsAgainstORIONOutputs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "reference", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 2 {
		t.Fatalf("%d ORION outputs in testdata/reference, want the two the load levels were checked against", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ref, err := readReference(path)
			if err != nil {
				t.Fatal(err)
			}
			pts, err := plannedPoints(ref.command, ref.luns)
			if err != nil {
				t.Fatalf("%v: %v", ref.command, err)
			}
			checked := false
			var ran []Point
			for _, name := range []string{"iops.csv", "lat.csv", "mbps.csv"} {
				lines, ok := ref.sections[name]
				if !ok {
					continue
				}
				checked = true
				header, cells, err := orionCSV(lines)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				small, large := axes(pts)
				wantHeader, wantRows := small, large
				if name == "mbps.csv" {
					wantRows = slices.DeleteFunc(slices.Clone(large), func(l int) bool { return l == 0 })
				} else {
					wantHeader = slices.DeleteFunc(slices.Clone(small), func(s int) bool { return s == 0 })
				}
				var rows []int
				for _, line := range lines[1:] {
					n, _ := strconv.Atoi(strings.TrimSpace(strings.Split(line, ",")[0]))
					rows = append(rows, n)
				}
				if !slices.Equal(header, wantHeader) || !slices.Equal(rows, wantRows) {
					t.Errorf("%s: ORION's columns %v and rows %v; clyde plans %v and %v", name, header, rows, wantHeader, wantRows)
				}
				if name != "lat.csv" {
					ran = append(ran, cells...)
				}
			}
			if ran != nil {
				slices.SortFunc(ran, comparePoints)
				want := slices.SortedFunc(slices.Values(pts), comparePoints)
				if !slices.Equal(ran, want) {
					t.Errorf("ORION ran the points %v; clyde plans %v", ran, want)
				}
			}
			if ls, ok := ref.sections["ls -l"]; ok {
				checked = true
				iops, mbps := orionCSVSizes(pts)
				want := map[string]int{"_iops.csv": iops, "_lat.csv": iops, "_mbps.csv": mbps}
				for _, line := range ls {
					f := strings.Fields(line) // mode, links, owner, group, size, date, time, name
					if len(f) != 8 {
						t.Fatalf("listing line %q", line)
					}
					for suffix, size := range want {
						if strings.HasSuffix(f[7], suffix) {
							if got, _ := strconv.Atoi(f[4]); got != size {
								t.Errorf("ORION wrote %s of %d bytes; clyde's points for %v make %d", f[7], got, ref.command, size)
							}
							delete(want, suffix)
						}
					}
				}
				if len(want) > 0 {
					t.Errorf("the listing has no file for %v", want)
				}
			}
			if !checked {
				t.Fatal("nothing in the file to check the levels against")
			}
		})
	}
}

// The CSV sizes tell one disk's levels from two disks': the check above
// could fail.
func TestORIONCSVSizesFollowTheLevels(t *testing.T) {
	one, _ := Matrix(MatrixBasic, 1, 0, 0)
	two, _ := Matrix(MatrixBasic, 2, 0, 0)
	i1, m1 := orionCSVSizes(one)
	i2, m2 := orionCSVSizes(two)
	if i1 != 128 || m1 != 100 {
		t.Errorf("one disk, -matrix basic: %d and %d bytes, want ORION 11.1's 128 and 100", i1, m1)
	}
	if i2 == i1 || m2 == m1 {
		t.Errorf("two disks give %d and %d bytes, as one disk does", i2, m2)
	}
}

func comparePoints(a, b Point) int {
	if a.Large != b.Large {
		return a.Large - b.Large
	}
	return a.Small - b.Small
}
