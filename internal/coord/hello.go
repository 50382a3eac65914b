package coord

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// The hello proves the token both ways before either side says anything it
// should keep to the job. The rank speaks first, with only its job's
// identity and a fresh nonce ("open"); rank 0 answers with its own job's
// identity, a fresh nonce of its own and a MAC over both nonces ("proof");
// the rank checks that MAC before it sends its hello (rank, host, pid,
// options), whose MAC covers both nonces and every field rank 0 acts on.
// A listener that does not hold the token (a local user who bound the port
// first) gets an open and nothing else; a replayed hello fails on rank 0's
// fresh nonce; the two MACs are domain-separated, so neither side's can
// stand in for the other's. After the hello the connection is plain TCP:
// the token keeps impostors out, it does not encrypt.

// handshakeTimeout bounds a connection's whole hello, from accept (or dial)
// to welcome, so a stranger that connects and says nothing, or says it a
// byte at a time, holds nothing for longer (a variable for the tests).
var handshakeTimeout = 10 * time.Second

const (
	// maxHello bounds one hello-phase line: a hello is a few hundred
	// bytes.
	maxHello = 8 << 10
	// MaxPending bounds the connections rank 0 holds in their hello at
	// once; one more is closed at accept (a rank retries). With each
	// pending connection under ~40 KB (its goroutine, a 4 KiB read buffer,
	// at most maxHello of line), a flood of idle connections costs rank 0
	// a few megabytes, not one allocation per connection.
	MaxPending = 128
)

// ProofError is a listener at rank 0's address that answered this job's
// open without knowing the token: an impostor, or a rank 0 given another
// token. The rank sends it nothing more and gives up.
type ProofError struct{ Addr string }

func (e *ProofError) Error() string {
	return fmt.Sprintf("what listens at %s claims to be this job's rank 0 but cannot prove it holds the job's token (another user's program on the port, or a rank 0 given another --token-file): nothing was sent to it", e.Addr)
}

// otherJobError is another job's rank 0 (or something that is not a clyde
// rank 0) at an address: the rank tries the next one.
type otherJobError struct{ addr, why string }

func (e *otherJobError) Error() string { return e.addr + ": " + e.why }

// proofMAC is rank 0's answer to a rank's nonce.
func proofMAC(token []byte, job, rankNonce, leadNonce string) string {
	return macOf(token, "clyde coordinator proof", job, rankNonce, leadNonce)
}

// helloMAC is a rank's proof, over both nonces and what rank 0 checks.
func helloMAC(token []byte, job, rankNonce, leadNonce string, h *hello) string {
	return macOf(token, "clyde rank hello", job, leadNonce, rankNonce, strconv.Itoa(h.Rank), strconv.Itoa(h.Size),
		h.Version, h.OptionsHash, h.Host, strconv.Itoa(h.PID), strconv.FormatBool(h.TokenExposed), h.Via)
}

// macOf is HMAC-SHA256 under token over the fields, each length-prefixed so
// that no two field lists give one message.
func macOf(token []byte, fields ...string) string {
	m := hmac.New(sha256.New, token)
	for _, f := range fields {
		m.Write([]byte(strconv.Itoa(len(f)) + ":" + f))
	}
	return hex.EncodeToString(m.Sum(nil))
}

func macEqual(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// leadHello is rank 0's side of one connection's hello: the rank's open,
// rank 0's proof, the rank's hello. It returns the hello once its MAC
// checks; nil when the connection is another job's rank, a stranger or
// silent (it is closed, and the job goes on). deadline bounds all of it.
func (j *Job) leadHello(w *wire, deadline time.Time) *hello {
	m, err := w.recvBy(deadline, maxHello)
	if err != nil || m.T != "open" || len(m.Nonce) < 16 || len(m.Nonce) > 128 {
		return nil
	}
	rankNonce := m.Nonce
	nonce := NewToken()
	proof := message{T: "proof", Job: j.cfg.Job, Nonce: nonce, MAC: proofMAC(j.cfg.Token, j.cfg.Job, rankNonce, nonce)}
	if w.sendBy(proof, deadline) != nil || m.Job != j.cfg.Job {
		return nil // another job's rank: it reads our job and moves on
	}
	m, err = w.recvBy(deadline, maxHello)
	if err != nil || m.T != "hello" || m.Hello == nil {
		return nil
	}
	h := m.Hello
	if !macEqual(h.MAC, helloMAC(j.cfg.Token, j.cfg.Job, rankNonce, nonce, h)) {
		_ = w.sendBy(message{T: "refuse", Text: "wrong job token"}, deadline)
		return nil
	}
	// The port the rank dialed, under its MAC, is the one this connection
	// came in on: a relay that listens on another port (the one a job
	// moved off, say) and passes the hello on is refused.
	if !samePort(h.Via, w.conn.LocalAddr()) {
		_ = w.sendBy(message{T: "refuse", Text: fmt.Sprintf("this rank dialed %s, but its hello reached rank 0 on %s (relayed, or a NAT that changes the port: give rank 0's own port)", h.Via, w.conn.LocalAddr())}, deadline)
		return nil
	}
	return h
}

// samePort reports whether the HOST:PORT a rank dialed ends in local's port.
func samePort(via string, local net.Addr) bool {
	_, p, err := net.SplitHostPort(via)
	ta, ok := local.(*net.TCPAddr)
	return err == nil && ok && p == strconv.Itoa(ta.Port)
}

// joinHello is a rank's side: open, check rank 0's proof, then hello. A
// proof that fails is a *ProofError (give up); another job's rank 0 an
// *otherJobError (try the next address); a refusal a *RefusedError.
func (j *Job) joinHello(w *wire, addr string, deadline time.Time) error {
	nonce := NewToken()
	if err := w.sendBy(message{T: "open", Job: j.cfg.Job, Nonce: nonce}, deadline); err != nil {
		return err
	}
	m, err := w.recvBy(deadline, maxHello)
	if err != nil {
		return fmt.Errorf("%s: no answer to this rank's hello: %w", addr, err)
	}
	if m.T != "proof" {
		return &otherJobError{addr, fmt.Sprintf("not a clyde rank 0 of this version (it said %.40q)", m.T)}
	}
	if m.Job != j.cfg.Job {
		return &otherJobError{addr, fmt.Sprintf("another job's rank 0 (job %.80q; this is %.80q)", m.Job, j.cfg.Job)}
	}
	if len(m.Nonce) < 16 || !macEqual(m.MAC, proofMAC(j.cfg.Token, j.cfg.Job, nonce, m.Nonce)) {
		return &ProofError{Addr: addr}
	}
	h := &hello{Peer: Peer{Rank: j.cfg.Rank, Host: j.cfg.Host, PID: j.cfg.PID, TokenExposed: j.cfg.TokenExposed}, Size: j.cfg.Size,
		Version: j.cfg.Version, OptionsHash: j.cfg.OptionsHash, Via: w.conn.RemoteAddr().String()}
	h.MAC = helloMAC(j.cfg.Token, j.cfg.Job, nonce, m.Nonce, h)
	if err := w.sendBy(message{T: "hello", Hello: h}, deadline); err != nil {
		return err
	}
	m, err = w.recvBy(deadline, maxHello)
	switch {
	case err != nil:
		return fmt.Errorf("hello to %s: %w", addr, err)
	case m.T == "refuse":
		return &RefusedError{Reason: m.Text}
	case m.T != "welcome":
		return fmt.Errorf("hello to %s: got %.40q", addr, m.T)
	}
	return nil
}

// isFinal reports whether a dial error ends the rank's search for rank 0.
func isFinal(err error) bool {
	var pe *ProofError
	var re *RefusedError
	return errors.As(err, &pe) || errors.As(err, &re)
}

// pendingSlot takes one of MaxPending places for a connection in its hello;
// false when all are taken.
func (j *Job) pendingSlot(c net.Conn) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.pending) >= MaxPending || j.ctx.Err() != nil || j.closing {
		return false
	}
	j.pending[c] = true
	return true
}
