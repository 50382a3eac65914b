package apitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// program is what the architecture issue asks another program to be able to
// write with clyde's public packages.
const program = `package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/fsbench"
	"github.com/clydebench/clyde/result"
)

func main() {
	ctx := context.Background()
	dir := os.Args[1]
	o := fsbench.DefaultOptions()
	o.Dir, o.SizeMiB, o.RAMMiB, o.FilesK, o.ByteIOMiB = dir, 32, 0, 1, 0
	var fs *result.FS
	fs, err := fsbench.Run(ctx, o)
	if err != nil {
		fmt.Println("fs:", err)
		os.Exit(1)
	}
	fmt.Println("fs runs:", len(fs.Runs), "put_block ran:", fs.Runs[0].Tests[result.PutBlock].Ran)
	j := blockbench.NewJob(dir + "/f")
	j.Size, j.Runtime = 16<<20, 500*time.Millisecond
	var b *result.Block
	b, err = blockbench.Run(ctx, j)
	if err != nil {
		fmt.Println("block:", err)
		os.Exit(1)
	}
	fmt.Println("block jobs:", len(b.Jobs), "read I/Os > 0:", b.Jobs[0].Read.TotalIOs > 0)
	o.SizeMiB = -5
	_, err = fsbench.Run(ctx, o)
	var ue *result.UsageError
	fmt.Println("refused:", errors.As(err, &ue), ue.Flag)
}
`

// TestExternalModule builds and runs program in a module of its own that
// requires clyde through a replace directive to this checkout, offline.
func TestExternalModule(t *testing.T) {
	if testing.Short() {
		clydetest.Skip(t, "builds a module of its own")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		clydetest.Skip(t, "needs the go command in PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	gomod := "module example.com/clydeuser\n\ngo 1.26.0\n\nrequire github.com/clydebench/clyde v0.0.0\n\nreplace github.com/clydebench/clyde => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(program)} {
		if err := os.WriteFile(filepath.Join(mod, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Offline: -mod=mod adds clyde's requirements to go.mod from the
	// module cache the checkout's own build filled, and go.sum has their
	// sums.
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	work := t.TempDir()
	run := exec.Command(goBin, "run", ".", work)
	run.Dir, run.Env = mod, env
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the outside program: %v\n%s", err, out)
	}
	want := "fs runs: 1 put_block ran: true\nblock jobs: 1 read I/Os > 0: true\nrefused: true -s\n"
	if string(out) != want {
		t.Fatalf("the outside program printed\n%s\nwant\n%s", out, want)
	}
	if entries, _ := os.ReadDir(work); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("the engines left %s in the directory", strings.Join(names, ", "))
	}
}
