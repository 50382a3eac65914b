package result

import "testing"

func TestFSTestNamed(t *testing.T) {
	for want := FSTest(0); want < FSTestCount; want++ {
		if got, ok := FSTestNamed(want.Name()); !ok || got != want {
			t.Errorf("FSTestNamed(%q) = %v, %v; want %v", want.Name(), got, ok, want)
		}
	}
	for _, name := range []string{"", "unknown", "put_block max latency", "PUTC"} {
		if _, ok := FSTestNamed(name); ok {
			t.Errorf("FSTestNamed(%q) found a test", name)
		}
	}
}
