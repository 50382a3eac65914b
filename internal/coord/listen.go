package coord

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rank 0 listens only on the addresses its ranks dial, never on every
// address of the machine: for a coordinator name (plain srun's first node,
// --coordinator), the addresses that name has here; under PMI, this host's
// unicast addresses and loopback, which it publishes itself.

// ListenFor is rank 0's listener for ranks that dial host at one of ports
// (tried in order: the first free on every address is taken). Where host
// resolves only to loopback while it is not a loopback name (Debian's
// 127.0.1.1 line for the machine's own name, which other nodes resolve
// through DNS), this host's unicast addresses are added. Where none of its
// addresses is this machine's (a NAT or service address), it listens on
// every address and says so in note.
func ListenFor(ctx context.Context, host string, ports []int) (ln net.Listener, note string, err error) {
	if len(ports) == 0 {
		return nil, "", errors.New("no port to listen on")
	}
	ips, err := resolve(ctx, host)
	if err != nil {
		note = fmt.Sprintf("rank 0: %s does not resolve here (%v): listening on every address", host, err)
		ln, err := firstFree(ports, func(p int) (net.Listener, error) { return ListenOn([]string{":" + strconv.Itoa(p)}) })
		return ln, note, err
	}
	if allLoopback(ips) && !isLoopbackName(host) {
		ips = append(ips, unicastIPs()...)
	}
	var local []net.IP
	for _, ip := range ips {
		l, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
		if err == nil {
			l.Close()
			local = append(local, ip)
		}
	}
	if len(local) == 0 {
		note = fmt.Sprintf("rank 0: %s resolves to %s, not an address of this machine (a NAT or service address, or rank 0 is not on that host): listening on every address", host, ipList(ips))
		ln, err := firstFree(ports, func(p int) (net.Listener, error) { return ListenOn([]string{":" + strconv.Itoa(p)}) })
		return ln, note, err
	}
	ln, err = firstFree(ports, func(p int) (net.Listener, error) {
		var addrs []string
		for _, ip := range local {
			addrs = append(addrs, net.JoinHostPort(ip.String(), strconv.Itoa(p)))
		}
		return ListenOn(addrs)
	})
	return ln, "", err
}

// ListenPublished is rank 0's listener under PMI: this host's unicast
// addresses and loopback, on one port chosen by the kernel; it returns the
// addresses to publish, loopback last.
func ListenPublished() (net.Listener, []string, error) {
	ips := append(unicastIPs(), net.IPv4(127, 0, 0, 1))
	var lastErr error
	for range 8 {
		first, err := net.Listen("tcp", net.JoinHostPort(ips[0].String(), "0"))
		if err != nil {
			return nil, nil, err
		}
		port := strconv.Itoa(first.Addr().(*net.TCPAddr).Port)
		addrs := []string{net.JoinHostPort(ips[0].String(), port)}
		for _, ip := range ips[1:] {
			addrs = append(addrs, net.JoinHostPort(ip.String(), port))
		}
		rest, err := ListenOn(addrs[1:])
		if err == nil {
			return &multiListener{lns: append([]net.Listener{first}, rest.(*multiListener).lns...), ch: make(chan accepted), done: make(chan struct{})}, addrs, nil
		}
		first.Close()
		lastErr = err
	}
	return nil, nil, lastErr
}

// firstFree tries listen on each port and returns the first that is free;
// any other error ends the search.
func firstFree(ports []int, listen func(int) (net.Listener, error)) (net.Listener, error) {
	var inUse []string
	for _, p := range ports {
		ln, err := listen(p)
		if err == nil {
			return ln, nil
		}
		if !addrInUse(err) {
			return nil, err
		}
		inUse = append(inUse, strconv.Itoa(p))
	}
	if len(inUse) > 3 {
		inUse = []string{inUse[0], "...", inUse[len(inUse)-1]}
	}
	return nil, fmt.Errorf("port %s in use (another job's rank 0, or another program)", strings.Join(inUse, " "))
}

func resolve(ctx context.Context, host string) ([]net.IP, error) {
	if ip := net.ParseIP(host); ip != nil {
		return []net.IP{ip}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	var ips []net.IP
	for _, a := range addrs {
		ips = append(ips, a.IP)
	}
	return ips, nil
}

func allLoopback(ips []net.IP) bool {
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false
		}
	}
	return true
}

func isLoopbackName(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || ip != nil && ip.IsLoopback()
}

// unicastIPs are this host's global unicast addresses.
func unicastIPs() []net.IP {
	var out []net.IP
	ifs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	for _, a := range ifs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.IsGlobalUnicast() {
			out = append(out, ipn.IP)
		}
	}
	return out
}

func ipList(ips []net.IP) string {
	s := make([]string, len(ips))
	for i, ip := range ips {
		s[i] = ip.String()
	}
	return strings.Join(s, ", ")
}

// ListenOn listens on every one of addrs (all or none) and accepts on all
// through one net.Listener.
func ListenOn(addrs []string) (net.Listener, error) {
	m := &multiListener{ch: make(chan accepted), done: make(chan struct{})}
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			for _, l := range m.lns {
				l.Close()
			}
			return nil, err
		}
		m.lns = append(m.lns, ln)
	}
	return m, nil
}

type accepted struct {
	c   net.Conn
	err error
}

// multiListener accepts on several listeners; Close closes them all.
type multiListener struct {
	lns   []net.Listener
	ch    chan accepted
	done  chan struct{}
	start sync.Once
	close sync.Once
}

func (m *multiListener) Accept() (net.Conn, error) {
	m.start.Do(func() {
		for _, l := range m.lns {
			go func() {
				for {
					c, err := l.Accept()
					select {
					case m.ch <- accepted{c, err}:
					case <-m.done:
						if c != nil {
							c.Close()
						}
						return
					}
					if err != nil {
						return
					}
				}
			}()
		}
	})
	select {
	case a := <-m.ch:
		return a.c, a.err
	case <-m.done:
		return nil, net.ErrClosed
	}
}

func (m *multiListener) Close() error {
	m.close.Do(func() {
		close(m.done)
		for _, l := range m.lns {
			l.Close()
		}
	})
	return nil
}

// Addr is the first address; Addrs gives them all.
func (m *multiListener) Addr() net.Addr { return m.lns[0].Addr() }

// Addrs are every address m listens on.
func (m *multiListener) Addrs() []net.Addr {
	out := make([]net.Addr, len(m.lns))
	for i, l := range m.lns {
		out[i] = l.Addr()
	}
	return out
}
