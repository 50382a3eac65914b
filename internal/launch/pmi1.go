package launch

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"time"
)

// pmiTimeout bounds one PMI exchange other than a barrier, so a launcher
// that stopped answering is an error rather than a hang.
const pmiTimeout = 30 * time.Second

// pmi1 speaks MPICH's PMI-1 wire protocol: one "cmd=NAME key=value ..."
// line each way (MPICH src/pmi/simple, Hydra's pmiserv).
type pmi1 struct {
	conn    net.Conn
	r       *bufio.Reader
	kvsname string
	valMax  int
	// broken: a Fence failed, the session is gone.
	broken bool
}

func newPMI1(conn net.Conn) (*pmi1, error) {
	p := &pmi1{conn: conn, r: bufio.NewReader(conn)}
	resp, err := p.call("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init", pmiTimeout)
	if err != nil {
		return nil, err
	}
	if resp["rc"] != "0" {
		return nil, fmt.Errorf("PMI-1 init refused: rc=%s", resp["rc"])
	}
	// As MPICH's client does: the limits, so a value too long for the
	// server is refused here, not truncated there.
	if resp, err = p.call("cmd=get_maxes", "maxes", pmiTimeout); err != nil {
		return nil, err
	}
	fmt.Sscan(resp["vallen_max"], &p.valMax)
	resp, err = p.call("cmd=get_my_kvsname", "my_kvsname", pmiTimeout)
	if err != nil {
		return nil, err
	}
	if p.kvsname = resp["kvsname"]; p.kvsname == "" {
		return nil, fmt.Errorf("PMI-1 get_my_kvsname gave no kvsname")
	}
	return p, nil
}

// parsePMI1 splits "cmd=x a=b c=d" into its fields.
func parsePMI1(line string) map[string]string {
	m := map[string]string{}
	for _, f := range strings.Fields(line) {
		k, v, _ := strings.Cut(f, "=")
		m[k] = v
	}
	return m
}

// MaxPMILine bounds a reply line: Hydra's longest (a 1024-byte value and
// its key) is far below it.
const MaxPMILine = 64 << 10

func (p *pmi1) call(req, want string, timeout time.Duration) (map[string]string, error) {
	_ = p.conn.SetDeadline(deadline(timeout))
	if _, err := p.conn.Write([]byte(req + "\n")); err != nil {
		return nil, fmt.Errorf("PMI-1 %s: %w", firstWord(req), err)
	}
	line, err := readLine(p.r)
	if err != nil {
		return nil, fmt.Errorf("PMI-1 %s: no reply: %w", firstWord(req), err)
	}
	m := parsePMI1(line)
	if m["cmd"] != want {
		return nil, fmt.Errorf("PMI-1 %s: got %q, want cmd=%s", firstWord(req), line, want)
	}
	return m, nil
}

func readLine(r *bufio.Reader) (string, error) {
	var b []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return "", err
		}
		b = append(b, chunk...)
		if len(b) > MaxPMILine {
			return "", fmt.Errorf("reply longer than %d bytes", MaxPMILine)
		}
		if !isPrefix {
			return string(b), nil
		}
	}
}

func deadline(d time.Duration) time.Time {
	if d == 0 {
		return time.Time{}
	}
	return time.Now().Add(d)
}

func firstWord(req string) string {
	w, _, _ := strings.Cut(req, " ")
	return strings.TrimPrefix(w, "cmd=")
}

func (p *pmi1) Put(key, value string) error {
	if err := checkValue("key", key); err != nil {
		return err
	}
	if err := checkValue("value", value); err != nil {
		return err
	}
	if p.valMax > 0 && len(value) > p.valMax {
		return fmt.Errorf("PMI-1 put %s: a %d-byte value, more than the server's %d", key, len(value), p.valMax)
	}
	resp, err := p.call(fmt.Sprintf("cmd=put kvsname=%s key=%s value=%s", p.kvsname, key, value), "put_result", pmiTimeout)
	if err != nil {
		return err
	}
	if resp["rc"] != "0" {
		return fmt.Errorf("PMI-1 put %s: rc=%s %s", key, resp["rc"], resp["msg"])
	}
	return nil
}

// Fence is barrier_in/barrier_out; it waits as long as the slowest rank
// takes to start, bounded by timeout (KVS.Fence).
func (p *pmi1) Fence(ctx context.Context, timeout time.Duration) error {
	return fence(ctx, p.conn, timeout, &p.broken, func(d time.Duration) error {
		_, err := p.call("cmd=barrier_in", "barrier_out", d)
		return err
	})
}

func (p *pmi1) Get(key string) (string, error) {
	resp, err := p.call(fmt.Sprintf("cmd=get kvsname=%s key=%s", p.kvsname, key), "get_result", pmiTimeout)
	if err != nil {
		return "", err
	}
	if resp["rc"] != "0" {
		return "", fmt.Errorf("PMI-1 get %s: rc=%s %s", key, resp["rc"], resp["msg"])
	}
	return resp["value"], nil
}

func (p *pmi1) Close() error {
	if p.broken {
		// The session ended with the Fence. The socket stays open until
		// the process exits, after its error line: Hydra kills every rank
		// the moment a PMI socket closes unfinalized, and a line still
		// on its way to the launcher's pipe would be lost with the rank.
		return nil
	}
	_, err := p.call("cmd=finalize", "finalize_ack", pmiTimeout)
	if cerr := p.conn.Close(); err == nil {
		err = cerr
	}
	return err
}
