package launch

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// pmi2 speaks the PMI-2 wire protocol as Slurm's mpi/pmi2 plugin serves it:
// a PMI-1 style "cmd=init pmi_version=2" line first, then messages of a
// six-character decimal length (space padded) and "cmd=NAME;key=value;...".
type pmi2 struct {
	conn  net.Conn
	r     *bufio.Reader
	jobid string
	// broken: a Fence failed, the session is gone.
	broken bool
}

func newPMI2(conn net.Conn, jobid string, rank, size int) (*pmi2, error) {
	p := &pmi2{conn: conn, r: bufio.NewReader(conn), jobid: jobid}
	_ = conn.SetDeadline(deadline(pmiTimeout))
	if _, err := conn.Write([]byte("cmd=init pmi_version=2 pmi_subversion=0\n")); err != nil {
		return nil, fmt.Errorf("PMI-2 init: %w", err)
	}
	line, err := readLine(p.r)
	if err != nil {
		return nil, fmt.Errorf("PMI-2 init: no reply: %w", err)
	}
	if m := parsePMI1(line); m["cmd"] != "response_to_init" || m["rc"] != "0" || m["pmi_version"] != "2" {
		return nil, fmt.Errorf("PMI-2 init: got %q", line)
	}
	resp, err := p.call(fmt.Sprintf("cmd=fullinit;pmijobid=%s;pmirank=%d;threaded=FALSE;", jobid, rank), "fullinit-response", pmiTimeout)
	if err != nil {
		return nil, err
	}
	if resp["rank"] != strconv.Itoa(rank) || resp["size"] != strconv.Itoa(size) {
		return nil, fmt.Errorf("PMI-2 fullinit says rank %s of %s, the environment rank %d of %d", resp["rank"], resp["size"], rank, size)
	}
	return p, nil
}

// parsePMI2 splits "cmd=x;a=b;c=d;" into its fields; ";;" is a literal ';'.
func parsePMI2(body string) map[string]string {
	m := map[string]string{}
	var cur strings.Builder
	flush := func() {
		k, v, _ := strings.Cut(cur.String(), "=")
		if k != "" {
			m[k] = v
		}
		cur.Reset()
	}
	for i := 0; i < len(body); i++ {
		if body[i] == ';' {
			if i+1 < len(body) && body[i+1] == ';' {
				cur.WriteByte(';')
				i++
				continue
			}
			flush()
			continue
		}
		cur.WriteByte(body[i])
	}
	flush()
	return m
}

// maxPMI2Body is what a six-digit length can say.
const maxPMI2Body = 999999

func (p *pmi2) call(body, want string, timeout time.Duration) (map[string]string, error) {
	name := strings.TrimPrefix(strings.SplitN(body, ";", 2)[0], "cmd=")
	_ = p.conn.SetDeadline(deadline(timeout))
	if _, err := fmt.Fprintf(p.conn, "%-6d%s", len(body), body); err != nil {
		return nil, fmt.Errorf("PMI-2 %s: %w", name, err)
	}
	var hdr [6]byte
	if _, err := io.ReadFull(p.r, hdr[:]); err != nil {
		return nil, fmt.Errorf("PMI-2 %s: no reply: %w", name, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(hdr[:])))
	if err != nil || n < 0 || n > maxPMI2Body {
		return nil, fmt.Errorf("PMI-2 %s: reply length %q", name, hdr[:])
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(p.r, buf); err != nil {
		return nil, fmt.Errorf("PMI-2 %s: short reply: %w", name, err)
	}
	m := parsePMI2(string(buf))
	if m["cmd"] != want {
		return nil, fmt.Errorf("PMI-2 %s: got %q, want cmd=%s", name, buf, want)
	}
	if m["rc"] != "0" {
		return nil, fmt.Errorf("PMI-2 %s: rc=%s %s", name, m["rc"], m["errmsg"])
	}
	return m, nil
}

func (p *pmi2) Put(key, value string) error {
	if err := checkValue("key", key); err != nil {
		return err
	}
	if err := checkValue("value", value); err != nil {
		return err
	}
	_, err := p.call(fmt.Sprintf("cmd=kvs-put;key=%s;value=%s;", key, value), "kvs-put-response", pmiTimeout)
	return err
}

func (p *pmi2) Fence(ctx context.Context, timeout time.Duration) error {
	return fence(ctx, p.conn, timeout, &p.broken, func(d time.Duration) error {
		_, err := p.call("cmd=kvs-fence;", "kvs-fence-response", d)
		return err
	})
}

func (p *pmi2) Get(key string) (string, error) {
	m, err := p.call(fmt.Sprintf("cmd=kvs-get;jobid=%s;srcid=-1;key=%s;", p.jobid, key), "kvs-get-response", pmiTimeout)
	if err != nil {
		return "", err
	}
	if m["found"] != "TRUE" {
		return "", fmt.Errorf("PMI-2 kvs-get %s: not found", key)
	}
	return m["value"], nil
}

func (p *pmi2) Close() error {
	if p.broken {
		// The session ended with the Fence. The socket stays open until
		// the process exits, after its error line: Hydra kills every rank
		// the moment a PMI socket closes unfinalized, and a line still
		// on its way to the launcher's pipe would be lost with the rank.
		return nil
	}
	_, err := p.call("cmd=finalize;", "finalize-response", pmiTimeout)
	if cerr := p.conn.Close(); err == nil {
		err = cerr
	}
	return err
}
