package coord

import (
	"context"
	"net"
	"strings"
	"testing"
)

// TestListenFor: rank 0 listens on the coordinator's own addresses, never
// on every address, and takes the next port of the range when the first is
// another job's.
func TestListenFor(t *testing.T) {
	taken := listen(t)
	defer taken.Close()
	p := taken.Addr().(*net.TCPAddr).Port
	ports := []int{p}
	for k := 1; k < 8 && p+k <= 65535; k++ {
		ports = append(ports, p+k)
	}
	ln, note, err := ListenFor(context.Background(), "127.0.0.1", ports)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if note != "" {
		t.Fatalf("note %q for a local address", note)
	}
	for _, a := range ln.(*multiListener).Addrs() {
		ta := a.(*net.TCPAddr)
		if !ta.IP.Equal(net.IPv4(127, 0, 0, 1)) || ta.Port == p {
			t.Fatalf("listening on %v, want 127.0.0.1 on a port after the taken %d", a, p)
		}
	}
	// Every port of the range taken: one line naming them.
	if _, _, err := ListenFor(context.Background(), "127.0.0.1", ports[:1]); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a taken port: %v", err)
	}
	// A name that is loopback only here (Debian's line for the machine's
	// own name) also gets this host's unicast addresses; "localhost" not.
	ln2, _, err := ListenFor(context.Background(), "localhost", []int{0})
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	for _, a := range ln2.(*multiListener).Addrs() {
		if ip := a.(*net.TCPAddr).IP; !ip.IsLoopback() {
			t.Fatalf("localhost: listening on %v", a)
		}
	}
}

func TestListenPublished(t *testing.T) {
	ln, addrs, err := ListenPublished()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if len(addrs) == 0 || !strings.HasPrefix(addrs[len(addrs)-1], "127.0.0.1:") {
		t.Fatalf("published %v, want loopback last", addrs)
	}
	for _, a := range ln.(*multiListener).Addrs() {
		if ip := a.(*net.TCPAddr).IP; ip.IsUnspecified() {
			t.Fatalf("listening on every address: %v", a)
		}
	}
	// Every published address takes a connection.
	for _, a := range addrs {
		c, err := net.Dial("tcp", a)
		if err != nil {
			t.Fatalf("dial %s: %v", a, err)
		}
		c.Close()
	}
}
