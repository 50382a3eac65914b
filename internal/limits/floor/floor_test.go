package floor

import (
	"strings"
	"testing"
)

// TestCheck: the floor refuses, in one line naming the limit, a process
// whose open files or address space leave no room for the runtime, and
// lets one with room start.
func TestCheck(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name string
		f    Facts
		want string // "" to start
	}{
		{"no limits", Facts{}, ""},
		{"ulimit -n 6", Facts{Files: 6, FilesOpen: 3}, "ulimit -n"},
		{"ulimit -n 10", Facts{Files: 10, FilesOpen: 3}, "ulimit -n"},
		{"ulimit -n 11", Facts{Files: 11, FilesOpen: 3}, ""},
		{"ulimit -n 16 with 9 inherited", Facts{Files: 16, FilesOpen: 9}, "ulimit -n"},
		{"runtime took the address space", Facts{AddressSpace: 976 * mib, AddressInUse: 965 * mib}, "RLIMIT_AS"},
		{"room for the runtime", Facts{AddressSpace: 2000 * mib, AddressInUse: 1700 * mib}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.f.Check()
			if tc.want == "" {
				if got != "" {
					t.Fatalf("refused: %s", got)
				}
				return
			}
			if !strings.Contains(got, tc.want) || strings.Contains(got, "\n") {
				t.Fatalf("Check() = %q, want one line naming %q", got, tc.want)
			}
		})
	}
}

func TestParseVmSize(t *testing.T) {
	status := "Name:\tclyde\nVmPeak:\t 1793476 kB\nVmSize:\t 1728196 kB\nVmLck:\t       0 kB\n"
	if got := parseVmSize([]byte(status)); got != 1728196<<10 {
		t.Fatalf("parseVmSize = %d", got)
	}
	if got := parseVmSize([]byte("Name:\tx\n")); got != 0 {
		t.Fatalf("no VmSize: %d", got)
	}
}
