// Command mutate runs the mutations of a list (internal/mutate) one at a
// time against the tests that must catch each, and prints the survivors;
// it exits 1 when there is one. `make mutate` runs the whole list,
// `make mutate-short` the entries marked short.
//
//	go run ./scripts/mutate [-list scripts/mutate/mutations.txt] [-short] [-only NAME] [-budget D -from TEXT]
//
// With -budget, the entries run in turn from a place that -from picks (CI
// gives the commit's hash, so a run can be repeated for its commit and
// each commit starts elsewhere in the list), and the budget bounds the
// whole run: no entry starts with less than minEntry of it left, and each
// one's tests get what is left as go test's -timeout, so an entry that
// runs past the budget is cut (its tests' own timeout handling releases
// what they hold) and counted as cut, neither killed nor survived. The
// line at the end says how many ran of how many.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/mutate"
)

// minEntry is the least of a budget an entry starts with: the integration
// suite's tests end their commands 45 s before go test's timeout.
const minEntry = 90 * time.Second

func main() {
	list := flag.String("list", "scripts/mutate/mutations.txt", "the mutation list")
	short := flag.Bool("short", false, "run only the entries marked short")
	only := flag.String("only", "", "run only the entries whose name contains this")
	timeout := flag.Duration("timeout", 5*time.Minute, "per mutation; a mutant that runs longer counts as caught (it hung)")
	budget := flag.Duration("budget", 0, "bound the whole run to this long (0: run every entry)")
	from := flag.String("from", "", "with -budget: text (a commit hash) that picks the entry to start from")
	flag.Parse()
	if err := run(*list, *short, *only, *timeout, *budget, *from); err != nil {
		fmt.Fprintln(os.Stderr, "mutate:", err)
		os.Exit(1)
	}
}

func run(list string, short bool, only string, timeout, budget time.Duration, from string) error {
	f, err := os.Open(list)
	if err != nil {
		return err
	}
	ms, err := mutate.Parse(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", list, err)
	}
	var chosen []mutate.Mutation
	for _, m := range ms {
		if (short && !m.Short) || (only != "" && !strings.Contains(m.Name, only)) {
			continue
		}
		chosen = append(chosen, m)
	}
	start := time.Now()
	if budget > 0 && len(chosen) > 0 {
		k := int(crc32.ChecksumIEEE([]byte(from)) % uint32(len(chosen)))
		chosen = append(chosen[k:], chosen[:k]...)
		fmt.Printf("a budget of %v: from entry %d of %d (picked by %q), in turn\n", budget, k+1, len(chosen), from)
	}
	var survivors []string
	ran, killed, equivalent, stale, left, cut := 0, 0, 0, 0, 0, 0
	for i, m := range chosen {
		limit := timeout
		if budget > 0 {
			rest := budget - time.Since(start)
			if rest < minEntry {
				left = len(chosen) - i
				break
			}
			limit = min(limit, rest)
		}
		if m.Equivalent != "" {
			equivalent++
			fmt.Printf("equivalent  %s: %s\n", m.Name, m.Equivalent)
			continue
		}
		if _, err := os.Stat(m.File); errors.Is(err, os.ErrNotExist) {
			// Code moved between packages: the entry for the other
			// layout runs instead; the stale one is listed to be removed.
			stale++
			fmt.Printf("stale       %s: %s is not in this tree\n", m.Name, m.File)
			continue
		}
		ran++
		caught, out, err := try(m, limit)
		if err != nil {
			return err
		}
		if caught && limit < timeout && strings.Contains(out, "test timed out after") {
			// The budget's bound, not the mutant, stopped the tests.
			ran--
			cut++
			fmt.Printf("cut         %s: the budget ran out during its tests\n", m.Name)
			continue
		}
		if caught {
			killed++
			fmt.Printf("killed      %s\n", m.Name)
			continue
		}
		survivors = append(survivors, m.Name)
		fmt.Printf("SURVIVED    %s (%s: %q -> %q; go test %s)\n%s", m.Name, m.File, m.Find, m.Replace, strings.Join(m.Packages, " "), indent(out))
	}
	fmt.Printf("\n%d mutations run, %d killed, %d survived, %d listed as equivalent, %d stale\n", ran, killed, len(survivors), equivalent, stale)
	if left+cut > 0 {
		fmt.Printf("the budget of %v was spent with %d of the %d entries not run and %d cut short: they run from another place on another commit, and all of them with make mutate\n", budget, left, len(chosen), cut)
	}
	if len(survivors) > 0 {
		return fmt.Errorf("%d survivors: %s", len(survivors), strings.Join(survivors, "; "))
	}
	return nil
}

// try applies m in an overlay and runs its packages' tests; caught is true
// when they fail (or time out).
func try(m mutate.Mutation, timeout time.Duration) (caught bool, out string, err error) {
	dir, err := os.MkdirTemp("", "clyde-mutate")
	if err != nil {
		return false, "", err
	}
	defer os.RemoveAll(dir)
	overlay, err := mutate.Apply(m, ".", dir)
	if err != nil {
		return false, "", err
	}
	// A build failure would count as a kill that proves nothing: vet the
	// mutant first, so a list entry that no longer compiles is reported.
	if b, err := exec.Command("go", "build", "-overlay", overlay, "./"+filepath.Dir(m.File)).CombinedOutput(); err != nil {
		return false, "", fmt.Errorf("mutation %q does not compile: %v\n%s", m.Name, err, b)
	}
	// go test's -timeout ends a hung mutant (a kill) or the budget's
	// stretch (a cut) with its own panic, after the integration suite's
	// release of its mounts; the context is only a backstop.
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	args := []string{"test", "-count=1", "-timeout", timeout.String(), "-overlay", overlay}
	if m.Run != "" {
		args = append(args, "-run", m.Run)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, m.Packages...)...)
	// Tests that build clyde and run it (the integration suite) build the
	// mutant too (clydetest.Build).
	cmd.Env = append(os.Environ(), clydetest.OverlayEnv+"="+overlay)
	b, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return false, lastLines(string(b), 5), nil
	case errors.As(err, &exit) || ctx.Err() != nil:
		return true, string(b), nil
	}
	return false, "", err
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "            " + strings.ReplaceAll(s, "\n", "\n            ") + "\n"
}
