// Package coord runs one many-client job over TCP: rank 0 listens, every
// other rank connects with the job token, and barriers, per-phase results
// and aborts go over those connections as JSON lines. A rank that dies,
// stops answering or disconnects ends the job on every rank with an
// *AbortError naming it. There is no daemon: the launcher (internal/launch)
// starts the processes and rank 0 is one of them.
package coord

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Defaults for Config's timeouts.
const (
	DefaultHelloTimeout = 2 * time.Minute
	DefaultLostAfter    = 15 * time.Second
	// MaxMessage bounds one JSON line: a phase result with its latency
	// histogram is far below it.
	MaxMessage = 16 << 20
	// readBuffer is each connection's read buffer; a longer line is read
	// in pieces (wire.recv), so a connection in its hello costs this much.
	readBuffer = 4 << 10
)

// Config is one rank's view of the job.
type Config struct {
	Rank, Size int
	Host       string
	PID        int
	Version    string
	// OptionsHash is a hash of the resolved options: every rank must run
	// the same benchmark, so a rank with another is refused at hello.
	OptionsHash string
	// Token is the job's secret; rank 0 and every rank prove to each
	// other that they hold it (hello.go).
	Token []byte
	// Job is the job's identity from its launcher (SLURM_JOB_ID.STEP, the
	// PMI kvsname or jobid), "" where it gives none: a rank talks only to
	// a rank 0 of its own job, so two jobs that share a token file and a
	// host never join each other.
	Job string
	// TokenExposed says that this rank's token file can be read by other
	// users; rank 0 names such ranks once (Job.Exposed).
	TokenExposed bool
	// HelloTimeout is how long rank 0 waits for every rank, and how long a
	// rank keeps dialing rank 0.
	HelloTimeout time.Duration
	// LostAfter is how long a peer may be silent (heartbeats stop) before
	// it is taken as lost.
	LostAfter time.Duration
}

func (c *Config) fill() {
	if c.HelloTimeout <= 0 {
		c.HelloTimeout = DefaultHelloTimeout
	}
	if c.LostAfter <= 0 {
		c.LostAfter = DefaultLostAfter
	}
}

// NewToken is a fresh random job token, hex so it fits any PMI value.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Peer is one rank as its hello described it.
type Peer struct {
	Rank int    `json:"rank"`
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// TokenExposed: this rank's token file can be read by other users.
	TokenExposed bool `json:"token_exposed,omitempty"`
}

// AbortError ends a job: which rank ended it, on which host, and why.
type AbortError struct {
	Rank        int    `json:"rank"`
	Host        string `json:"host"`
	Reason      string `json:"reason"`
	Interrupted bool   `json:"interrupted,omitempty"`
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("rank %d (%s) %s", e.Rank, e.Host, e.Reason)
}

// Unwrap makes an interrupted job a cancellation (exit 130 on every rank).
func (e *AbortError) Unwrap() error {
	if e.Interrupted {
		return context.Canceled
	}
	return nil
}

// RefusedError is rank 0 turning this rank away at hello.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return "refused by rank 0: " + e.Reason }

// message is every line on the wire; T says which fields matter.
type message struct {
	T     string          `json:"t"`
	Job   string          `json:"job,omitempty"`
	Nonce string          `json:"nonce,omitempty"`
	MAC   string          `json:"mac,omitempty"`
	Hello *hello          `json:"hello,omitempty"`
	Name  string          `json:"name,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
	Count int64           `json:"count,omitempty"`
	Abort *AbortError     `json:"abort,omitempty"`
	Peers []Peer          `json:"peers,omitempty"`
	Text  string          `json:"text,omitempty"`
}

type hello struct {
	Peer
	Size        int    `json:"size"`
	Version     string `json:"version"`
	OptionsHash string `json:"options_hash"`
	// Via is the HOST:PORT this rank dialed, as it connected.
	Via string `json:"via"`
	MAC string `json:"mac"`
}

// wire is one connection: JSON lines out under a lock, bounded lines in.
type wire struct {
	conn net.Conn
	r    *bufio.Reader
	mu   sync.Mutex
}

func newWire(c net.Conn) *wire { return &wire{conn: c, r: bufio.NewReaderSize(c, readBuffer)} }

func (w *wire) send(m message, timeout time.Duration) error {
	return w.sendBy(m, time.Now().Add(timeout))
}

// sendBy is send with an absolute deadline (the hello's).
func (w *wire) sendBy(m message, deadline time.Time) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.conn.SetWriteDeadline(deadline)
	_, err = w.conn.Write(b)
	return err
}

func (w *wire) recv(timeout time.Duration, limit int) (message, error) {
	return w.recvBy(time.Now().Add(timeout), limit)
}

// recvBy is recv with an absolute deadline: a peer that sends a byte at a
// time cannot stretch it.
func (w *wire) recvBy(deadline time.Time, limit int) (message, error) {
	_ = w.conn.SetReadDeadline(deadline)
	var line []byte
	for {
		chunk, err := w.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > limit {
			return message{}, fmt.Errorf("message longer than %d bytes", limit)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return message{}, err
		}
		break
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return message{}, fmt.Errorf("not a clyde message: %w", err)
	}
	return m, nil
}

// describe turns a read error into the few words an abort line needs.
func describe(err error, silent time.Duration) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("lost: silent for %s (hung or unreachable)", silent)
	case errors.Is(err, net.ErrClosed):
		return "lost: connection closed"
	}
	return "lost: connection closed (" + err.Error() + ")"
}

// exchange is one collective step: every rank arrives with data; when all
// have, every rank goes on. Rank 0 keeps what they brought.
type exchange struct {
	arrived []bool
	n       int
	data    []json.RawMessage
	done    chan struct{}
	// counted is for phase ends: each rank's counter when the first
	// rank finished.
	counting bool
	counts   []int64
	ncounts  int
	first    int
}

func newExchange(size int) *exchange {
	return &exchange{arrived: make([]bool, size), data: make([]json.RawMessage, size), done: make(chan struct{}), first: -1}
}

func (x *exchange) complete() bool {
	return x.n == len(x.arrived) && (!x.counting || x.ncounts == len(x.arrived))
}

// Job is this process's membership in the job.
type Job struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelCauseFunc
	peers  []Peer

	mu       sync.Mutex
	xs       map[string]*exchange // rank 0: every exchange; others: those waited on
	counters map[string]func() int64
	closing  bool
	// firsts close when the first rank arrives at an AllGather (by name).
	firsts map[string]chan struct{}
	// told is set once this rank has sent an abort (its own or one it
	// passes on): an abort is told once, even after the job's context was
	// cancelled by the process's own signal.
	told bool
	// verdict is the abort the job ended with: on rank 0 the first it
	// heard of (and told every rank), on the others the one rank 0 told.
	verdict *AbortError

	// rank 0
	ln    net.Listener
	conns []*wire // by rank; nil for rank 0
	// pending are connections still in their hello.
	pending map[net.Conn]bool
	byes    []bool
	byeCh   chan struct{}
	// stopped marks each rank that said it stopped or is gone (Stop);
	// ran each rank done with its work or gone (Ran).
	stopped, ran rankSet
	// other ranks
	up *wire
	// released closes when rank 0 lets the stopped ranks go (or is gone).
	released chan struct{}

	stop chan struct{}
	wg   sync.WaitGroup
}

// Context is cancelled, with the *AbortError as its cause, when the job
// ends abnormally.
func (j *Job) Context() context.Context { return j.ctx }

// Err is the job's abort, nil while it runs.
func (j *Job) Err() error {
	if j.ctx.Err() == nil {
		return nil
	}
	return context.Cause(j.ctx)
}

// Peers lists every rank (rank 0 knows them all; the others learn them at
// the start).
func (j *Job) Peers() []Peer { return j.peers }

// Rank and Size are this rank's place.
func (j *Job) Rank() int { return j.cfg.Rank }
func (j *Job) Size() int { return j.cfg.Size }

func (j *Job) heartbeatEvery() time.Duration { return max(j.cfg.LostAfter/5, 10*time.Millisecond) }

// fail ends the job once, telling the others. The connections stay open:
// a stopping rank still says when it has stopped (Stop), and the readers
// keep reading until the job shuts down.
func (j *Job) fail(ae *AbortError) {
	j.mu.Lock()
	if j.told || j.closing {
		j.mu.Unlock()
		return
	}
	j.told = true
	if j.cfg.Rank == 0 && j.verdict == nil {
		j.verdict = ae
	}
	if j.ctx.Err() == nil {
		j.cancel(ae)
	}
	conns := append([]*wire(nil), j.conns...)
	j.mu.Unlock()
	msg := message{T: "abort", Abort: ae}
	if j.cfg.Rank == 0 {
		for _, w := range conns {
			if w != nil {
				_ = w.send(msg, time.Second)
			}
		}
		return
	}
	if j.up != nil {
		_ = j.up.send(msg, time.Second)
	}
}

// Verdict is the abort the job ended with as rank 0 decided it (the first
// it heard of, told to every rank), nil while the job runs or when rank 0
// never said (it is gone). Every rank exits on it, so that all exit with
// one code: a launcher that ORs the codes (Hydra) or takes the highest
// (srun) then reads what happened to the job.
func (j *Job) Verdict() *AbortError {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.verdict
}

// Abort ends the job because this rank failed (or was interrupted: err is
// a context cancellation); every other rank's Context is cancelled. It
// does not wait: a rank that is about to exit after its cleanup calls Stop.
func (j *Job) Abort(err error) {
	ae := &AbortError{Rank: j.cfg.Rank, Host: j.cfg.Host, Reason: "failed: " + err.Error()}
	if errors.Is(err, context.Canceled) {
		ae.Reason, ae.Interrupted = "interrupted", true
	}
	var prior *AbortError
	if errors.As(err, &prior) {
		ae = prior
	}
	j.fail(ae)
}

// DefaultStopWait bounds how long Stop waits for the other ranks' cleanup;
// heartbeats go on meanwhile, so a rank that dies is still seen as lost
// after Config.LostAfter.
const DefaultStopWait = 10 * time.Minute

// Stop is a rank leaving a job that did not finish: it aborts the job (see
// Abort), then waits until every rank has stopped and cleaned up (or is
// gone), at most wait, and shuts the job down. No rank exits while another
// is still removing its files, so an exit is never read as a lost rank (a
// launcher that sums the exit codes would report that instead of the
// interruption), and a launcher that kills the survivors once one exits
// kills no rank in its cleanup.
func (j *Job) Stop(err error, wait time.Duration) {
	j.Abort(err)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	if j.cfg.Rank == 0 {
		select {
		case <-j.stopped.all:
		case <-timer.C:
		}
		j.mu.Lock()
		conns := append([]*wire(nil), j.conns...)
		j.mu.Unlock()
		for _, w := range conns {
			if w != nil {
				_ = w.send(message{T: "release"}, time.Second)
			}
		}
	} else if j.up != nil {
		_ = j.up.send(message{T: "stopped"}, j.cfg.LostAfter)
		select {
		case <-j.released:
		case <-timer.C:
		}
	}
	j.shutdown()
}

// rankSet is rank 0's record of which other ranks have reached a point
// (or are gone); all closes when every one has.
type rankSet struct {
	seen []bool
	n    int
	all  chan struct{}
}

func newRankSet(size int) rankSet {
	s := rankSet{seen: make([]bool, size), all: make(chan struct{})}
	if size <= 1 {
		close(s.all)
	}
	return s
}

// mark records rank r; j.mu is held.
func (s *rankSet) mark(r int) {
	if r < 1 || r >= len(s.seen) || s.seen[r] {
		return
	}
	s.seen[r] = true
	if s.n++; s.n == len(s.seen)-1 {
		close(s.all)
	}
}

// markGone is rank 0 learning that rank r is gone: it holds up nothing.
func (j *Job) markGone(r int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.stopped.mark(r)
	j.ran.mark(r)
}

// Ran says that this rank is done with its work, failed or not: it no
// longer touches anything the ranks share. Rank 0 waits for it with
// WaitRan before it removes what they shared.
func (j *Job) Ran() {
	if j.cfg.Rank != 0 && j.up != nil {
		_ = j.up.send(message{T: "ran"}, j.cfg.LostAfter)
	}
}

// WaitRan, on rank 0, returns once every other rank has said Ran or is
// gone, or after wait.
func (j *Job) WaitRan(wait time.Duration) {
	if j.cfg.Rank != 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-j.ran.all:
	case <-t.C:
	}
}

func (j *Job) closeConns() {
	if j.ln != nil {
		_ = j.ln.Close()
	}
	j.mu.Lock()
	conns := append([]*wire(nil), j.conns...)
	for c := range j.pending {
		_ = c.Close()
	}
	j.mu.Unlock()
	for _, w := range conns {
		if w != nil {
			_ = w.conn.Close()
		}
	}
}

// arrive enters this rank into exchange name and waits until every rank has.
func (j *Job) arrive(ctx context.Context, name string, data any, counting bool) (*exchange, error) {
	// After an abort nothing more is exchanged: the connections stay
	// open only for Stop.
	if err := j.Err(); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	var x *exchange
	if j.cfg.Rank == 0 {
		x = j.leaderArrive(0, name, raw, counting)
	} else {
		j.mu.Lock()
		x = j.xs[name]
		if x == nil {
			x = newExchange(j.cfg.Size)
			j.xs[name] = x
		}
		j.mu.Unlock()
		// A failed send is rank 0 gone or going: readLeader finds out
		// which (an abort it sent first, or the closed connection).
		_ = j.up.send(message{T: "arrive", Name: name, Data: raw, Count: boolCount(counting)}, j.cfg.LostAfter)
	}
	select {
	case <-x.done:
		if err := j.Err(); err != nil {
			return nil, err
		}
		return x, nil
	case <-j.ctx.Done():
		return nil, context.Cause(j.ctx)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func boolCount(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (j *Job) peerHost(rank int) string {
	if rank < len(j.peers) && j.peers[rank].Host != "" {
		return j.peers[rank].Host
	}
	return "?"
}

// Barrier returns when every rank has reached the barrier of that name.
func (j *Job) Barrier(ctx context.Context, name string) error {
	_, err := j.arrive(ctx, "b:"+name, nil, false)
	return err
}

// Gather brings each rank's data to rank 0, which gets them by rank; the
// others get nil. It is a barrier too.
func (j *Job) Gather(ctx context.Context, name string, data any) ([]json.RawMessage, error) {
	x, err := j.arrive(ctx, "g:"+name, data, false)
	if err != nil || j.cfg.Rank != 0 {
		return nil, err
	}
	return x.data, nil
}

// FirstArrived is closed once the first rank has arrived at AllGather
// name: a stonewall's "some rank stopped, stop too".
func (j *Job) FirstArrived(name string) <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.first("a:" + name)
}

// first is the channel of exchange name's first arrival; j.mu is held.
func (j *Job) first(name string) chan struct{} {
	ch := j.firsts[name]
	if ch == nil {
		ch = make(chan struct{})
		j.firsts[name] = ch
	}
	return ch
}

// arrived closes exchange name's first-arrival channel (once).
func (j *Job) arrived(name string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	ch := j.first(name)
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// AllGather brings each rank's data to every rank, by rank. It is a
// barrier too.
func (j *Job) AllGather(ctx context.Context, name string, data any) ([]json.RawMessage, error) {
	x, err := j.arrive(ctx, "a:"+name, data, false)
	if err != nil {
		return nil, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(x.data) != j.cfg.Size || x.data[j.cfg.Rank] == nil {
		return nil, fmt.Errorf("all-gather %s: rank 0 sent no data", name)
	}
	return x.data, nil
}

// Begin registers the phase's operation counter (read from other goroutines
// when the first rank finishes) and waits for every rank: the common start.
func (j *Job) Begin(ctx context.Context, phase string, counter func() int64) error {
	j.mu.Lock()
	j.counters[phase] = counter
	j.mu.Unlock()
	_, err := j.arrive(ctx, "begin:"+phase, nil, false)
	return err
}

// Outcome is a phase's end as rank 0 sees it.
type Outcome struct {
	// Data is each rank's result, by rank.
	Data []json.RawMessage
	// First is the rank that finished first; AtFirst is every rank's
	// operation count at that moment (elbencho's "first done").
	First   int
	AtFirst []int64
}

// End reports this rank's result for the phase and waits for every rank
// (mdtest's closing barrier). Rank 0 gets the Outcome; the others nil.
func (j *Job) End(ctx context.Context, phase string, data any) (*Outcome, error) {
	x, err := j.arrive(ctx, "end:"+phase, data, true)
	if err != nil || j.cfg.Rank != 0 {
		return nil, err
	}
	return &Outcome{Data: x.data, First: x.first, AtFirst: x.counts}, nil
}

func (j *Job) counter(phase string) int64 {
	j.mu.Lock()
	f := j.counters[phase]
	j.mu.Unlock()
	if f == nil {
		return 0
	}
	return f()
}

// Close ends a job that went well: a last barrier, then each rank says
// goodbye so that rank 0 can tell a finished rank from a lost one. If the
// barrier fails, the job is still up: the caller leaves it with Stop.
func (j *Job) Close(ctx context.Context) error {
	if err := j.Barrier(ctx, "close"); err != nil {
		return err
	}
	j.mu.Lock()
	j.closing = true
	j.mu.Unlock()
	if j.cfg.Rank == 0 {
		select {
		case <-j.byeCh:
		case <-time.After(j.cfg.LostAfter):
		}
	} else {
		_ = j.up.send(message{T: "bye"}, j.cfg.LostAfter)
	}
	j.shutdown()
	return nil
}

// shutdown stops the heartbeats and readers.
func (j *Job) shutdown() {
	j.mu.Lock()
	select {
	case <-j.stop:
	default:
		close(j.stop)
	}
	j.closing = true
	j.mu.Unlock()
	if j.cfg.Rank == 0 {
		j.closeConns()
	} else if j.up != nil {
		_ = j.up.conn.Close()
	}
	j.wg.Wait()
	j.cancel(context.Canceled)
}
