package blockbench

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// fio's language (job files, its command line, its log files, its own
// fields of a job's result) lives in package fiojob, which imports
// blockbench; blockbench reaches fio only through hooks the CLI or fiojob
// set (record.go, shape.go). TestFioBoundary holds that: blockbench's own code, and every package of the module it imports,
// never imports fiojob, and no blockbench file outside the tests spells
// fio's log options or file names, which only a writer of fio's logs needs.
func TestFioBoundary(t *testing.T) {
	const module = "github.com/clydebench/clyde"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		clydetest.Skipf(t, "no module root above the package: %v", err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	var walk func(pkg string, from string)
	walk = func(pkg, from string) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		if pkg == module+"/fiojob" {
			t.Errorf("%s imports %s: blockbench must not depend on fio's package", from, pkg)
			return
		}
		dir := filepath.Join(root, strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/"))
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("package %s: no Go files in %s (%v)", pkg, dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p == module || strings.HasPrefix(p, module+"/") {
					walk(p, f)
				}
			}
		}
	}
	walk(module+"/blockbench", "")

	// fio's log options and file names: what only a writer of its logs
	// spells out.
	forbidden := []string{"write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log", "log_avg_msec",
		"log_hist_msec", "log_hist_coarseness", "log_offset", "_clat_hist", "_bw.", "_iops.", "_slat.", "_clat.", "_lat."}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			for _, s := range forbidden {
				if strings.Contains(lit.Value, s) {
					t.Errorf("%s: %s spells fio's logs (%q); they are fiojob's (fiolog.go), reached through the record hook", fset.Position(lit.Pos()), lit.Value, s)
				}
			}
			return true
		})
	}
}

// TestFioShapeIsFiojobs holds that fio's own fields of a job (the queue
// depth and latency distributions, the 500 ms sample statistics, bw_agg,
// latency_target's) and fio's io_u_map binning are filled only by the shape
// hook (shape.go; fiojob.Shape): no blockbench file outside the tests names
// them, so no engine or summary can fill or bin them again, and the I/O
// loop keeps counting at full resolution (countHist).
func TestFioShapeIsFiojobs(t *testing.T) {
	names := map[string]bool{"depthBucket": true, "batchBucket": true, "fioLevels": true,
		"IODepthLevel": true, "IODepthSubmit": true, "IODepthComplete": true, "LatencyNs": true, "LatencyMs": true,
		"LatencyDepth": true, "LatencyPercentile": true, "LatencyTarget": true, "LatencyWindow": true, "BWAgg": true,
		"BWMin": true, "BWMax": true, "BWDev": true, "BWSamples": true, "IOPSMin": true, "IOPSMax": true, "IOPSStddev": true,
		"IOPSSamples": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(file, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && names[id.Name] {
				t.Errorf("%s: %s is fio's shape of a job, fiojob's to fill (shape.go's hook)", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no blockbench source files found")
	}
}
