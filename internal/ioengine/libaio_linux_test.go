//go:build linux

package ioengine

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
)

// TestLibaioLayout pins the kernel ABI: offsets of the iocb fields the
// kernel reads.
func TestLibaioLayout(t *testing.T) {
	var c libaioIOCB
	for _, f := range []struct {
		name string
		got  uintptr
		want uintptr
	}{
		{"aio_lio_opcode", unsafe.Offsetof(c.opcode), 16},
		{"aio_fildes", unsafe.Offsetof(c.fildes), 20},
		{"aio_buf", unsafe.Offsetof(c.buf), 24},
		{"aio_nbytes", unsafe.Offsetof(c.nbytes), 32},
		{"aio_offset", unsafe.Offsetof(c.offset), 40},
		{"aio_flags", unsafe.Offsetof(c.flags), 56},
	} {
		if f.got != f.want {
			t.Errorf("%s at %d, the kernel reads it at %d", f.name, f.got, f.want)
		}
	}
	var e libaioEvent
	if unsafe.Offsetof(e.res) != 16 {
		t.Errorf("io_event.res at %d, want 16", unsafe.Offsetof(e.res))
	}
}

// againCounter counts the commits its engine refused with ErrAgain.
type againCounter struct {
	Engine
	refused int
}

func (c *againCounter) Commit() (int, error) {
	n, err := c.Engine.Commit()
	if err == ErrAgain {
		c.refused++
	}
	return n, err
}

// TestLibaioEagain queues more than the engine's AIO context holds (a
// context made for 1 I/O, which the kernel rounds up to far fewer than the
// depth): io_submit refuses with EAGAIN once it is full, Commit says
// ErrAgain and keeps the rest queued, and after reaps every unit is
// submitted and comes back once with its block, none lost or repeated.
func TestLibaioEagain(t *testing.T) {
	const depth, blocks = 512, 2048
	if err := libaioProbe(); err != nil {
		clydetest.Skipf(t, "libaio not available here: %v", err)
	}
	path := patternFile(t, testDir(t), blocks, 0)
	e := openEngine(t, libaio, path, osio.ReadOnly, depth, blocks*testBS)
	a := e.(*libaioEngine)
	libaioDestroy(a.ctx)
	ctx, err := libaioSetup(1)
	if err != nil {
		t.Fatal(err)
	}
	a.ctx = ctx
	var reqs []ioReq
	for i := range int64(blocks) {
		reqs = append(reqs, ioReq{Read, i * testBS, make([]byte, testBS)})
	}
	c := &againCounter{Engine: e}
	res := drive(t, libaio, c, depth, reqs)
	if c.refused == 0 {
		clydetest.Skipf(t, "the kernel's context for 1 I/O took %d: no EAGAIN to test", depth)
	}
	for k, r := range res {
		if r.back != 1 || r.err != nil || r.n != testBS || !bytes.Equal(reqs[k].buf, blockPattern(int64(k))) {
			t.Fatalf("read %d (%d refusals): back %d times, %d bytes, %v, right bytes %v", k, c.refused, r.back, r.n, r.err,
				bytes.Equal(reqs[k].buf, blockPattern(int64(k))))
		}
	}
	if a.queued != 0 {
		t.Errorf("%d iocbs still queued after the run", a.queued)
	}
}
