// Command benchcompare prints clyde fs's figures against bonnie++'s from CSV
// lines both tools printed side by side in one run (scripts/bench-fs.sh).
//
//	benchcompare -bonnie b.csv -clyde c.csv -tests 6,7,8,9,10,11 -geomean 0.95 -range 0.6,1.6
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/internal/bonnie"
	"github.com/clydebench/clyde/result"
)

func main() {
	bonniePath := flag.String("bonnie", "", "file of bonnie++ CSV lines")
	clydePath := flag.String("clyde", "", "file of clyde CSV lines")
	tests := flag.String("tests", "", "comma list of test numbers (0 putc .. 11 ran_del) to compare")
	title := flag.String("title", "", "heading")
	geoTarget := flag.Float64("geomean", 0, "target for the geometric mean of the ratios (0: none)")
	rangeSpec := flag.String("range", "", "lo,hi target for every ratio")
	flag.Parse()
	b, err := readLines(*bonniePath)
	check(err)
	c, err := readLines(*clydePath)
	check(err)
	lo, hi := 0.0, math.Inf(1)
	if *rangeSpec != "" {
		parts := strings.Split(*rangeSpec, ",")
		lo, _ = strconv.ParseFloat(parts[0], 64)
		hi, _ = strconv.ParseFloat(parts[1], 64)
	}
	fmt.Printf("\n%s (median of %d bonnie++ and %d clyde runs, interleaved)\n", *title, len(b), len(c))
	fmt.Printf("%-12s %14s %14s %8s  %s\n", "test", "bonnie++", "clyde", "ratio", "target")
	logSum, n := 0.0, 0
	for _, f := range strings.Split(*tests, ",") {
		ti, err := strconv.Atoi(f)
		check(err)
		t := result.FSTest(ti)
		bm, bok := median(b, t)
		cm, cok := median(c, t)
		if !bok || !cok {
			fmt.Printf("%-12s %14s %14s %8s\n", t.Name(), show(bm, bok), show(cm, cok), "n/a (+++++ or missing)")
			continue
		}
		ratio := cm / bm
		logSum += math.Log(ratio)
		n++
		verdict := ""
		if *rangeSpec != "" {
			verdict = fmt.Sprintf("%.2f-%.2f ", lo, hi)
			if ratio >= lo && ratio <= hi {
				verdict += "ok"
			} else {
				verdict += "MISSED"
			}
		}
		fmt.Printf("%-12s %14.0f %14.0f %8.3f  %s\n", t.Name(), bm, cm, ratio, verdict)
	}
	if n > 0 && *geoTarget > 0 {
		g := math.Exp(logSum / float64(n))
		verdict := "ok"
		if g < *geoTarget {
			verdict = "MISSED"
		}
		fmt.Printf("%-12s %14s %14s %8.3f  >= %.2f %s\n", "geomean", "", "", g, *geoTarget, verdict)
	}
}

func show(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func readLines(path string) ([]bonnie.Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []bonnie.Line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if bonnie.IsHeader(sc.Text()) || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		l, err := bonnie.ParseCSVLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// median of the known rates of test t; false when none is known.
func median(lines []bonnie.Line, t result.FSTest) (float64, bool) {
	var v []float64
	for _, l := range lines {
		if f := l.Tests[t]; f.RateState == bonnie.CellKnown {
			v = append(v, f.Rate)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcompare:", err)
		os.Exit(1)
	}
}
