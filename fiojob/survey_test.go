package fiojob

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestFioExamplesSurvey reads every job file of fio's examples/ directory
// (FIO_EXAMPLES; Debian's fio package ships none, so it is a checkout's)
// as clyde block FILE would, and reports how many compile and why the
// others are refused, grouped by reason: the list the fio-dialect issue
// asks for. Every refusal must be one line naming what is refused; a
// crash or an empty message fails. Refusals are expected: the report is
// the result.
func TestFioExamplesSurvey(t *testing.T) {
	dir := os.Getenv("FIO_EXAMPLES")
	if dir == "" {
		t.Skip("set FIO_EXAMPLES to fio's examples/ directory to survey them")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.fio"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .fio files in %s (%v)", dir, err)
	}
	env := Env{Getenv: func(k string) (string, bool) {
		// The examples' ${VAR}s, as a user running them would set them.
		return map[string]string{"FILENAME": "/tmp/fio-survey.dat", "DEVICE": "/dev/sdz", "SIZE": "64m"}[k], true
	}}
	reasons := map[string][]string{}
	var ok []string
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".fio")
		_, err := Load(path, env, Options{Exists: func(string) bool { return true }})
		if err == nil {
			ok = append(ok, name)
			continue
		}
		msg := err.Error()
		if msg == "" || strings.Contains(msg, "\n") {
			t.Errorf("%s: refusal is not one line: %q", name, msg)
		}
		// The reason without where: drop the file:line prefix.
		if i := strings.Index(msg, ": "); i >= 0 && strings.Contains(msg[:i], ".fio") {
			msg = msg[i+2:]
		}
		if len(msg) > 90 {
			msg = msg[:90] + "..."
		}
		reasons[msg] = append(reasons[msg], name)
	}
	var keys []string
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(reasons[keys[i]]) != len(reasons[keys[j]]) {
			return len(reasons[keys[i]]) > len(reasons[keys[j]])
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d of fio's examples compile: %s\n", len(ok), len(files), strings.Join(ok, " "))
	for _, k := range keys {
		fmt.Fprintf(&b, "%3d  %s  [%s]\n", len(reasons[k]), k, strings.Join(reasons[k], " "))
	}
	t.Log("\n" + b.String())
}
