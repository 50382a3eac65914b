package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseErrorsDoNotQuoteTheFile is case 11 of issue 20: /etc/shadow
// passed by mistake as a job file, an .icf or a .lun put its first line,
// a password hash, on stderr. The errors name the line number only.
func TestParseErrorsDoNotQuoteTheFile(t *testing.T) {
	const hash = "$6$rounds=5000$saltsalt$SECRETHASHSECRETHASH"
	shadow := "root:" + hash + ":19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"
	cases := []struct {
		name string
		args func(dir, file string) []string
		want string
	}{
		{"job file", func(dir, file string) []string { return []string{"block", file} }, ":1: malformed"},
		{"Iometer .icf", func(dir, file string) []string {
			return []string{"iometer", file, "--filename", filepath.Join(dir, "f")}
		}, ":1: not Iometer's version line"},
		{"ORION .lun", func(dir, file string) []string {
			return []string{"orion", "-run", "simple", "-testname", strings.TrimSuffix(file, ".lun")}
		}, "line 1: (a name that is not a plain path"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "shadow.lun")
			if err := os.WriteFile(file, []byte(shadow), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runClyde(t, tc.args(dir, file)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line with %q", code, stderr, tc.want)
			}
			if strings.Contains(stderr+out, "SECRETHASH") || strings.Contains(stderr+out, "19000") {
				t.Fatalf("the file's content was printed: %q", stderr)
			}
		})
	}
}
