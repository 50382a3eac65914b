// Package iometer reads Iometer configuration files (.icf) into the setup
// clyde's block engine runs: the access specifications, the test setup
// (run time, ramp-up, cycling) and the disk workers of the manager list.
// The grammar is Iometer 1.1.0's (src/ICF_ifstream.cpp and the LoadConfig
// functions): comment lines starting with ' are keys, the lines after them
// values. Every line is read; sections and settings clyde does not use are
// listed in Config.Ignored with their line, and anything malformed is
// refused with one line naming the file and line.
package iometer

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// MaxFileBytes bounds what is read of a configuration file; Iometer's are
// a few kilobytes.
const MaxFileBytes = 4 << 20

// maxLineBytes is Iometer's MAX_ICF_LINE and then some.
const maxLineBytes = 64 << 10

// Config is an .icf file as read.
type Config struct {
	// Source names the file in messages and in the result.
	Source  string
	Version string
	// VersionNumber is Version as Iometer 1.1.0's GetVersion reads it
	// (versionOf): the number that decides the format of the access
	// specifications (icf_old.go's oldSpecs).
	VersionNumber uint64
	// Description is the Test Description.
	Description string
	RunTime     time.Duration
	RampUp      time.Duration
	// DiskWorkersToSpawn is the Default Disk Workers to Spawn, -1 for
	// NUMBER_OF_CPUS, 0 when absent: what Iometer starts when the file has
	// no manager list.
	DiskWorkersToSpawn int
	// TestType is Iometer's test type (NORMAL, CYCLE_OUTSTANDING_IOS, ...).
	TestType     string
	TestTypeLine int
	QueueCycle   Cycle
	WorkerCycle  Cycle
	Specs        []Spec
	Workers      []Worker
	// ManagerList says the file has a manager list (its workers).
	ManagerList bool
	// Ignored lists what clyde read and does not use, each with its line.
	Ignored []string
}

// Cycle is one of the test setup's cycling settings.
type Cycle struct {
	Start, End, Step int
	Exponential      bool
	Line             int
}

// Spec is one access specification of the global list.
type Spec struct {
	AccessSpec
	// Assignment is the default assignment: NONE, ALL, DISK, NET or a
	// number.
	Assignment string
	Line       int
	// OldFormat marks a specification read from a file before Iometer
	// 1998.05.21 (icf_old.go).
	OldFormat bool
}

// Worker is one worker of the manager list.
type Worker struct {
	Name    string
	Manager string
	Line    int
	// Disk is false for a network worker.
	Disk           bool
	OutstandingIOs int
	FixedSeed      bool
	Seed           uint64
	// MaxSectors and StartSector are the disk region in sectors (512
	// bytes); MaxSectors 0 is the whole disk.
	MaxSectors  int64
	StartSector int64
	// DataPattern is Iometer's 0 repeating bytes, 1 pseudo random, 2 full
	// random; -1 when the file predates it.
	DataPattern int
	Specs       []string
	SpecLines   []int
	Targets     []string
}

// Parse reads an .icf file. source names it in errors ("FILE:LINE: ...").
// Every error is a *result.UsageError.
func Parse(r io.Reader, source string) (*Config, error) {
	p := &parser{cfg: &Config{Source: source}}
	if err := p.read(r); err != nil {
		return nil, err
	}
	if err := p.file(); err != nil {
		return nil, err
	}
	return p.cfg, nil
}

type line struct {
	n    int
	text string // trimmed
}

type parser struct {
	cfg   *Config
	lines []line
	i     int
}

func (p *parser) read(r io.Reader) error {
	sc := bufio.NewScanner(io.LimitReader(r, MaxFileBytes+1))
	sc.Buffer(make([]byte, 4096), maxLineBytes)
	total := 0
	for sc.Scan() {
		total += len(sc.Bytes()) + 1
		if total > MaxFileBytes {
			return result.Usagef(p.cfg.Source, "more than %d bytes; not an Iometer configuration file", MaxFileBytes)
		}
		p.lines = append(p.lines, line{n: len(p.lines) + 1, text: strings.TrimSpace(sc.Text())})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return p.errf(len(p.lines)+1, "a line longer than %d bytes; not an Iometer configuration file", maxLineBytes)
		}
		return result.Usagef(p.cfg.Source, "read: %v", err)
	}
	return nil
}

func (p *parser) errf(n int, format string, args ...any) error {
	return result.Usagef(fmt.Sprintf("%s:%d", p.cfg.Source, n), format, args...)
}

func (p *parser) ignore(n int, format string, args ...any) {
	p.cfg.Ignored = append(p.cfg.Ignored, fmt.Sprintf("line %d: ", n)+fmt.Sprintf(format, args...))
}

func (p *parser) eof() bool { return p.i >= len(p.lines) }

// lastLine is the number to name when the file ends too early.
func (p *parser) lastLine() int { return len(p.lines) }

// skipBlank moves past empty lines.
func (p *parser) skipBlank() {
	for !p.eof() && p.lines[p.i].text == "" {
		p.i++
	}
}

func isComment(s string) bool { return strings.HasPrefix(s, "'") }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isEnd(s string) bool { return hasPrefixFold(s, "'End") }

// comment takes the next comment line (skipping blank lines), or fails
// saying what was expected.
func (p *parser) comment(expected string) (line, error) {
	p.skipBlank()
	if p.eof() {
		return line{}, p.errf(p.lastLine(), "the file ends where %s was expected", expected)
	}
	l := p.lines[p.i]
	if !isComment(l.text) {
		return line{}, p.errf(l.n, "a line where %s was expected", expected)
	}
	p.i++
	return l, nil
}

// pair is Iometer's GetPair: a key comment, any further comment lines,
// then one value line (which may be empty). An End key has no value; a
// further comment that is an End is left for the next call.
func (p *parser) pair(expected string) (key line, value line, err error) {
	key, err = p.comment(expected)
	if err != nil || isEnd(key.text) {
		return key, line{n: key.n}, err
	}
	for !p.eof() && isComment(p.lines[p.i].text) {
		if isEnd(p.lines[p.i].text) {
			return key, line{n: key.n}, nil
		}
		p.i++
	}
	if p.eof() {
		return key, line{}, p.errf(p.lastLine(), "the file ends where the value of %q was expected", key.text)
	}
	value = p.lines[p.i]
	p.i++
	return key, value, nil
}

func (p *parser) file() error {
	p.skipBlank()
	if p.eof() {
		return result.Usagef(p.cfg.Source, "empty; an Iometer configuration file starts with its version line (\"Version 1.1.0\")")
	}
	first := p.lines[p.i]
	v, num, ok := versionOf(first.text)
	if !ok {
		// The line is not quoted: a file that is no .icf (/etc/shadow
		// given by mistake) must not be copied to stderr and logs.
		return p.errf(first.n, "not Iometer's version line (\"Version 1.1.0\" or \"Version 2006.07.27\"): not an Iometer configuration file")
	}
	p.cfg.Version, p.cfg.VersionNumber = v, num
	if num < firstVersion {
		// Iometer 1.1.0 says so and reads the file all the same.
		p.ignore(first.n, "version %s is earlier than 1998.01.05 (Iometer: \"Version number earlier than 1998.01.05 or incorrectly formatted\"); read as Iometer reads it all the same", v)
	}
	p.i++
	for {
		p.skipBlank()
		if p.eof() {
			return nil
		}
		l := p.lines[p.i]
		var err error
		switch {
		case hasPrefixFold(l.text, "Version"):
			p.i++ // Iometer repeats the version line at the end
		case hasPrefixFold(l.text, "'TEST SETUP"):
			p.i++
			err = p.testSetup()
		case hasPrefixFold(l.text, "'RESULTS DISPLAY"):
			p.i++
			err = p.skipSection(l, "'END results display", "RESULTS DISPLAY section (clyde prints its own results)")
		case hasPrefixFold(l.text, "'ACCESS SPECIFICATIONS") && oldSpecs(p.cfg.VersionNumber):
			p.i++
			err = p.accessSpecsOld()
		case hasPrefixFold(l.text, "'ACCESS SPECIFICATIONS"):
			p.i++
			err = p.accessSpecs()
		case hasPrefixFold(l.text, "'MANAGER LIST"):
			p.i++
			p.cfg.ManagerList = true
			err = p.managerList()
		default:
			err = p.errf(l.n, "not the start of an Iometer section (TEST SETUP, RESULTS DISPLAY, ACCESS SPECIFICATIONS, MANAGER LIST)")
		}
		if err != nil {
			return err
		}
	}
}

// versionOf reads the version line: "Version " and the version as
// Iometer writes it ("1.1.0", "2006.07.27", "2008.06.18-RC2"), and the
// number Iometer 1.1.0's GetVersion (src/ICF_ifstream.cpp) makes of it,
// the one number that decides the file's format. GetVersion takes the
// first three runs of digits, whatever lies between them; a major part
// above 1900 is a date, yyyy*10000+mm*100+dd, any other the 1.1.0
// numbering, major*10^10+middle*10^5+minor ("3.26.97" is 30002600097, so
// the special case GetVersion keeps for 1998's OLTP.txt, 32697 taken as
// 1998.01.05, is reached only by "0.0.32697"). clyde also wants the word
// Version first: it is how a file that is no .icf is told apart.
func versionOf(s string) (text string, number uint64, ok bool) {
	if !hasPrefixFold(s, "Version") {
		return "", 0, false
	}
	text = strings.TrimSpace(s[len("Version"):])
	var parts [3]uint64
	rest := text
	for i := range parts {
		start := strings.IndexFunc(rest, isDigit)
		if start < 0 {
			return "", 0, false
		}
		rest = rest[start:]
		end := strings.IndexFunc(rest, func(r rune) bool { return !isDigit(r) })
		if end < 0 {
			end = len(rest)
		}
		if end > 9 { // past what Iometer's atoi holds
			return "", 0, false
		}
		parts[i], _ = strconv.ParseUint(rest[:end], 10, 64)
		rest = rest[end:]
	}
	if parts[0] > 1900 {
		number = parts[0]*10000 + parts[1]*100 + parts[2]
	} else {
		number = parts[0]*10_000_000_000 + parts[1]*100_000 + parts[2]
	}
	if number == 32697 {
		number = firstVersion
	}
	return text, number, true
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

func (p *parser) skipSection(start line, end, what string) error {
	for !p.eof() {
		l := p.lines[p.i]
		p.i++
		if strings.EqualFold(l.text, end) {
			p.ignore(start.n, "%s", what)
			return nil
		}
	}
	return p.errf(start.n, "section %q has no %q line", start.text, end)
}

func (p *parser) testSetup() error {
	for {
		key, val, err := p.pair("a test setup setting or 'END test setup")
		if err != nil {
			return err
		}
		k := key.text
		switch {
		case strings.EqualFold(k, "'END test setup"):
			return nil
		case strings.EqualFold(k, "'Test Description"):
			p.cfg.Description = val.text
		case strings.EqualFold(k, "'Run Time"):
			var hms [3]int
			if err := p.ints(val, "run time (hours minutes seconds)", hms[:]); err != nil {
				return err
			}
			// Each part is bounded before they are added: 2147483647
			// minutes alone overflow a time.Duration.
			lim := int(blockbench.MaxRuntime / time.Second)
			if hms[0] < 0 || hms[1] < 0 || hms[2] < 0 || hms[0] > lim/3600 || hms[1] > lim/60 || hms[2] > lim {
				return p.errf(val.n, "run time %q is out of range (at most %v)", val.text, blockbench.MaxRuntime)
			}
			d := time.Duration(hms[0])*time.Hour + time.Duration(hms[1])*time.Minute + time.Duration(hms[2])*time.Second
			if d > blockbench.MaxRuntime {
				return p.errf(val.n, "run time %q is out of range (at most %v)", val.text, blockbench.MaxRuntime)
			}
			p.cfg.RunTime = d
		case hasPrefixFold(k, "'Ramp Up Time"):
			var s [1]int
			if err := p.ints(val, "ramp up time (seconds)", s[:]); err != nil {
				return err
			}
			if s[0] < 0 || s[0] > 36_000_000 {
				return p.errf(val.n, "ramp up time %d s is out of range", s[0])
			}
			p.cfg.RampUp = time.Duration(s[0]) * time.Second
		case strings.EqualFold(k, "'Default Disk Workers to Spawn"), strings.EqualFold(k, "'Default Workers to Spawn"):
			if strings.EqualFold(val.text, "NUMBER_OF_CPUS") {
				p.cfg.DiskWorkersToSpawn = -1
				continue
			}
			var n [1]int
			if err := p.ints(val, "number of workers or NUMBER_OF_CPUS", n[:]); err != nil {
				return err
			}
			if n[0] < 0 || n[0] > 4096 {
				return p.errf(val.n, "%d disk workers is out of range", n[0])
			}
			p.cfg.DiskWorkersToSpawn = n[0]
		case strings.EqualFold(k, "'Default Network Workers to Spawn"):
			p.ignore(key.n, "Default Network Workers to Spawn (clyde runs disk workers only)")
		case strings.EqualFold(k, "'Record Results"):
			if !oneOf(val.text, "ALL", "NO_TARGETS", "NO_WORKERS", "NO_MANAGERS", "NONE") {
				return p.errf(val.n, "Record Results %q is not ALL, NO_TARGETS, NO_WORKERS, NO_MANAGERS or NONE", val.text)
			}
			p.ignore(key.n, "Record Results %s (clyde keeps every test and every worker's job)", val.text)
		case strings.EqualFold(k, "'Worker Cycling"):
			if p.cfg.WorkerCycle, err = p.cycle(val, false); err != nil {
				return err
			}
		case strings.EqualFold(k, "'Disk Cycling"):
			if _, err := p.cycle(val, false); err != nil {
				return err
			}
			p.ignore(key.n, "Disk Cycling (clyde runs on one target, --filename)")
		case strings.EqualFold(k, "'Queue Depth Cycling"):
			if p.cfg.QueueCycle, err = p.cycle(val, true); err != nil {
				return err
			}
		case strings.EqualFold(k, "'Test Type"):
			t := strings.ToUpper(val.text)
			if !oneOf(t, "NORMAL", "CYCLE_TARGETS", "CYCLE_WORKERS", "INCREMENT_TARGETS_PARALLEL", "INCREMENT_TARGETS_SERIAL",
				"CYCLE_WORKERS_AND_TARGETS", "CYCLE_OUTSTANDING_IOS", "CYCLE_OUTSTANDING_IOS_AND_TARGETS") {
				return p.errf(val.n, "Test Type %q is not one of Iometer's", val.text)
			}
			p.cfg.TestType, p.cfg.TestTypeLine = t, val.n
		default:
			return p.errf(key.n, "%q is not a TEST SETUP setting", k)
		}
	}
}

func oneOf(s string, choices ...string) bool {
	for _, c := range choices {
		if strings.EqualFold(s, c) {
			return true
		}
	}
	return false
}

// fields splits a value on commas and blanks.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// ints reads len(out) integers from a value.
func (p *parser) ints(val line, what string, out []int) error {
	f := fields(val.text)
	if len(f) != len(out) {
		return p.errf(val.n, "%q: want %s, %d number(s)", val.text, what, len(out))
	}
	for i, s := range f {
		v, err := strconv.Atoi(s)
		if err != nil {
			return p.errf(val.n, "%q: %q is not a whole number (%s)", val.text, s, what)
		}
		out[i] = v
	}
	return nil
}

// cycle reads "start step type" or, for queue depth, "start end step type".
func (p *parser) cycle(val line, withEnd bool) (Cycle, error) {
	f := fields(val.text)
	want := 3
	what := "start, step and LINEAR or EXPONENTIAL"
	if withEnd {
		want, what = 4, "start, end, step and LINEAR or EXPONENTIAL"
	}
	if len(f) != want {
		return Cycle{}, p.errf(val.n, "%q: want %s", val.text, what)
	}
	c := Cycle{Line: val.n}
	nums := make([]int, want-1)
	for i := range nums {
		v, err := strconv.Atoi(f[i])
		if err != nil || v < 0 || v > 1<<30 {
			return Cycle{}, p.errf(val.n, "%q: %q is not a count (%s)", val.text, f[i], what)
		}
		nums[i] = v
	}
	switch t := f[want-1]; {
	case strings.EqualFold(t, "LINEAR"):
	case strings.EqualFold(t, "EXPONENTIAL"):
		c.Exponential = true
	default:
		return Cycle{}, p.errf(val.n, "step type %q is not LINEAR or EXPONENTIAL", t)
	}
	c.Start, c.Step = nums[0], nums[len(nums)-1]
	if withEnd {
		c.End = nums[1]
	}
	return c, nil
}

func (p *parser) accessSpecs() error {
	for {
		key, val, err := p.pair("an access specification or 'END access specifications")
		if err != nil {
			return err
		}
		switch {
		case strings.EqualFold(key.text, "'END access specifications"):
			return nil
		case strings.EqualFold(key.text, "'Access specification name,default assignment"):
			if err := p.accessSpec(key, val); err != nil {
				return err
			}
		default:
			return p.errf(key.n, "%q in the ACCESS SPECIFICATIONS section; want 'Access specification name,default assignment%s", key.text, p.formatHint())
		}
	}
}

// formatHint is what a refusal in the named format adds for a file whose
// version line does not read as a date: Iometer 1.1.0 takes "Version
// 3.26.97" as its own numbering, after every date, so such a file's
// specifications are read in the named format, as clyde reads them.
func (p *parser) formatHint() string {
	if p.cfg.VersionNumber < 10_000_000_000 || strings.HasPrefix(p.cfg.Version, "1.") {
		return ""
	}
	return fmt.Sprintf(" (a file of \"Version %s\" has named access specifications to Iometer 1.1.0, which reads that version as %d, after 1998.05.21)", p.cfg.Version, p.cfg.VersionNumber)
}

func (p *parser) accessSpec(key, val line) error {
	comma := strings.IndexByte(val.text, ',')
	if comma <= 0 {
		return p.errf(val.n, "%q: want NAME,DEFAULT_ASSIGNMENT", val.text)
	}
	s := Spec{Line: val.n, Assignment: strings.ToUpper(strings.TrimSpace(val.text[comma+1:]))}
	s.Name = strings.TrimSpace(val.text[:comma])
	if _, err := strconv.Atoi(s.Assignment); err != nil && !oneOf(s.Assignment, "NONE", "ALL", "DISK", "NET") {
		return p.errf(val.n, "default assignment %q is not NONE, ALL, DISK, NET or a number", s.Assignment)
	}
	// The column header: one comment line.
	if _, err := p.comment("the 'size,% of size,% reads,% random,delay,burst,align,reply line"); err != nil {
		return err
	}
	sum := 0
	for {
		p.skipBlank()
		if p.eof() || isComment(p.lines[p.i].text) {
			break
		}
		l := p.lines[p.i]
		p.i++
		if len(s.Lines) == MaxAccessLines {
			return p.errf(l.n, "access specification %q has more than %d lines", s.Name, MaxAccessLines)
		}
		al, err := p.accessLine(l)
		if err != nil {
			return err
		}
		sum += al.Weight
		s.Lines = append(s.Lines, al)
	}
	switch {
	case len(s.Lines) == 0:
		return p.errf(val.n, "access specification %q has no lines", s.Name)
	case sum != 100:
		return p.errf(val.n, "access specification %q: its %% of size sum to %d, not 100", s.Name, sum)
	}
	for i, old := range p.cfg.Specs {
		if strings.EqualFold(old.Name, s.Name) {
			// Iometer replaces a specification of the same name.
			p.ignore(old.Line, "access specification %q, replaced by the one at line %d", old.Name, s.Line)
			p.cfg.Specs = append(p.cfg.Specs[:i], p.cfg.Specs[i+1:]...)
			break
		}
	}
	p.cfg.Specs = append(p.cfg.Specs, s)
	return nil
}

// accessLine reads "size,% of size,% reads,% random,delay,burst,align,reply".
func (p *parser) accessLine(l line) (AccessLine, error) {
	f := strings.Split(l.text, ",")
	if len(f) != 8 {
		return AccessLine{}, p.errf(l.n, "%q: want size,%% of size,%% reads,%% random,delay,burst,align,reply (8 numbers)", l.text)
	}
	names := [8]string{"size", "% of size", "% reads", "% random", "delay", "burst", "align", "reply"}
	var v [8]int64
	for i, s := range f {
		x, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return AccessLine{}, p.errf(l.n, "%s %q is not a whole number", names[i], strings.TrimSpace(s))
		}
		v[i] = x
	}
	return p.checkAccessLine(l, v)
}

// checkAccessLine checks one line's numbers (size, % of size, % reads,
// % random, delay, burst, align, reply) as Iometer's ranges and clyde's
// disk workers allow, and makes the line.
func (p *parser) checkAccessLine(l line, v [8]int64) (AccessLine, error) {
	bad := func(format string, args ...any) (AccessLine, error) {
		return AccessLine{}, p.errf(l.n, format, args...)
	}
	switch {
	case v[0] < 1 || v[0] > 1<<30:
		return bad("transfer size %d is outside 1 byte..1 GiB", v[0])
	case v[1] < 0 || v[1] > 100, v[2] < 0 || v[2] > 100, v[3] < 0 || v[3] > 100:
		return bad("%% of size, %% reads and %% random must be 0..100, got %d, %d, %d", v[1], v[2], v[3])
	case v[4] < 0 || v[4] > 3_600_000:
		return bad("delay %d ms is outside 0..3600000", v[4])
	case v[5] < 0 || v[5] > 1<<30:
		return bad("burst %d is out of range", v[5])
	case v[6] < 0 || v[6] > 1<<30:
		return bad("alignment %d is outside 0..1 GiB", v[6])
	case v[7] != 0:
		return bad("reply size %d is for network workers; clyde runs disk workers, so it must be 0", v[7])
	}
	return AccessLine{Size: v[0], Weight: int(v[1]), ReadPct: int(v[2]), RandomPct: int(v[3]),
		Delay: time.Duration(v[4]) * time.Millisecond, Burst: int(v[5]), Align: v[6]}, nil
}

func (p *parser) managerList() error {
	for {
		key, val, err := p.pair("a manager or 'END manager list")
		if err != nil {
			return err
		}
		switch {
		case strings.EqualFold(key.text, "'END manager list"):
			return nil
		case strings.EqualFold(key.text, "'Manager ID, manager name"):
			if err := p.manager(val); err != nil {
				return err
			}
		default:
			return p.errf(key.n, "%q in the MANAGER LIST section; want 'Manager ID, manager name", key.text)
		}
	}
}

func (p *parser) manager(idName line) error {
	comma := strings.IndexByte(idName.text, ',')
	if comma < 0 {
		return p.errf(idName.n, "%q: want ID,NAME", idName.text)
	}
	if _, err := strconv.Atoi(strings.TrimSpace(idName.text[:comma])); err != nil {
		return p.errf(idName.n, "manager ID %q is not a number", idName.text[:comma])
	}
	mgr := strings.TrimSpace(idName.text[comma+1:])
	key, addr, err := p.pair("'Manager network address")
	if err != nil {
		return err
	}
	if !strings.EqualFold(key.text, "'Manager network address") {
		return p.errf(key.n, "%q after the manager's name; want 'Manager network address", key.text)
	}
	if addr.text != "" {
		p.ignore(addr.n, "manager %q's network address %s (clyde runs on this host)", mgr, addr.text)
	}
	for {
		key, val, err := p.pair("a worker or 'End manager")
		if err != nil {
			return err
		}
		switch {
		case strings.EqualFold(key.text, "'End manager"):
			return nil
		case strings.EqualFold(key.text, "'Worker"):
			if err := p.worker(mgr, val); err != nil {
				return err
			}
		default:
			return p.errf(key.n, "%q in manager %q; want 'Worker or 'End manager", key.text, mgr)
		}
	}
}

func (p *parser) worker(mgr string, name line) error {
	w := Worker{Name: name.text, Manager: mgr, Line: name.n, OutstandingIOs: 1, DataPattern: -1}
	key, typ, err := p.pair("'Worker type")
	if err != nil {
		return err
	}
	if !strings.EqualFold(key.text, "'Worker type") {
		return p.errf(key.n, "%q after worker %q; want 'Worker type", key.text, w.Name)
	}
	switch t := strings.ToUpper(strings.ReplaceAll(typ.text, " ", "")); t {
	case "DISK":
		w.Disk = true
	case "NETWORK,TCP", "NETWORK,VI":
	default:
		return p.errf(typ.n, "worker type %q is not DISK, NETWORK,TCP or NETWORK,VI", typ.text)
	}
	for {
		c, err := p.comment("a worker setting or 'End worker")
		if err != nil {
			return err
		}
		switch {
		case strings.EqualFold(c.text, "'End worker"):
			if !w.Disk {
				p.ignore(w.Line, "network worker %q (clyde runs disk workers only)", w.Name)
				return nil
			}
			p.cfg.Workers = append(p.cfg.Workers, w)
			return nil
		case strings.EqualFold(c.text, "'Default target settings for worker"):
			if err := p.workerDefaults(&w); err != nil {
				return err
			}
		case strings.EqualFold(c.text, "'Assigned access specs"):
			for {
				p.skipBlank()
				if p.eof() {
					return p.errf(c.n, "worker %q's assigned access specs have no 'End assigned access specs", w.Name)
				}
				l := p.lines[p.i]
				p.i++
				if strings.EqualFold(l.text, "'End assigned access specs") {
					break
				}
				if isComment(l.text) {
					return p.errf(l.n, "%q among worker %q's assigned access specs", l.text, w.Name)
				}
				w.Specs, w.SpecLines = append(w.Specs, l.text), append(w.SpecLines, l.n)
			}
		case strings.EqualFold(c.text, "'Target assignments"):
			if err := p.targets(&w); err != nil {
				return err
			}
		default:
			return p.errf(c.n, "%q in worker %q", c.text, w.Name)
		}
	}
}

func (p *parser) workerDefaults(w *Worker) error {
	for {
		key, val, err := p.pair("a default target setting or 'End default target settings for worker")
		if err != nil {
			return err
		}
		k := key.text
		switch {
		case strings.EqualFold(k, "'End default target settings for worker"):
			return nil
		case strings.EqualFold(k, "'Number of outstanding IOs,test connection rate,transactions per connection"),
			strings.EqualFold(k, "'Number of outstanding IOs,test connection rate,transactions per connection,use fixed seed,fixed seed value"):
			f := fields(val.text)
			seeded := len(k) > len("'Number of outstanding IOs,test connection rate,transactions per connection")
			want := 3
			if seeded {
				want = 5
			}
			if len(f) != want {
				return p.errf(val.n, "%q: want %d values for %s", val.text, want, strings.TrimPrefix(k, "'"))
			}
			n, err := strconv.Atoi(f[0])
			if err != nil || n < 1 || n > blockbench.MaxIODepth {
				return p.errf(val.n, "number of outstanding IOs %q is outside 1..%d", f[0], blockbench.MaxIODepth)
			}
			w.OutstandingIOs = n
			switch {
			case strings.EqualFold(f[1], "ENABLED"):
				p.ignore(val.n, "worker %q's test connection rate (clyde keeps its target open for the whole test)", w.Name)
			case !strings.EqualFold(f[1], "DISABLED"):
				return p.errf(val.n, "test connection rate %q is not ENABLED or DISABLED", f[1])
			}
			if _, err := strconv.Atoi(f[2]); err != nil {
				return p.errf(val.n, "transactions per connection %q is not a number", f[2])
			}
			if seeded {
				switch {
				case strings.EqualFold(f[3], "ENABLED"):
					w.FixedSeed = true
				case !strings.EqualFold(f[3], "DISABLED"):
					return p.errf(val.n, "use fixed seed %q is not ENABLED or DISABLED", f[3])
				}
				seed, err := strconv.ParseUint(f[4], 10, 64)
				if err != nil {
					return p.errf(val.n, "fixed seed value %q is not a number", f[4])
				}
				w.Seed = seed
			}
		case strings.EqualFold(k, "'Disk maximum size,starting sector"), strings.EqualFold(k, "'Disk maximum size,starting sector,Data pattern"):
			f := fields(val.text)
			withPattern := strings.HasSuffix(strings.ToLower(k), "data pattern")
			want := 2
			if withPattern {
				want = 3
			}
			if len(f) != want {
				return p.errf(val.n, "%q: want %d values for %s", val.text, want, strings.TrimPrefix(k, "'"))
			}
			const maxSectors = 1 << 53 // 4 EiB: past any disk, and the bytes fit an int64
			size, err1 := strconv.ParseInt(f[0], 10, 64)
			start, err2 := strconv.ParseInt(f[1], 10, 64)
			if err1 != nil || err2 != nil || size < 0 || start < 0 || size > maxSectors || start > maxSectors {
				return p.errf(val.n, "%q: disk maximum size and starting sector are sector counts, 0..%d", val.text, int64(maxSectors))
			}
			w.MaxSectors, w.StartSector = size, start
			if withPattern {
				dp, err := strconv.Atoi(f[2])
				if err != nil || dp < 0 || dp > 2 {
					return p.errf(val.n, "data pattern %q is not 0 (repeating bytes), 1 (pseudo random) or 2 (full random)", f[2])
				}
				w.DataPattern = dp
			}
		case strings.EqualFold(k, "'Local network interface"), strings.EqualFold(k, "'VI outstanding IOs"):
			p.ignore(key.n, "%s of worker %q (network workers only)", strings.TrimPrefix(k, "'"), w.Name)
		default:
			return p.errf(key.n, "%q in worker %q's default target settings", k, w.Name)
		}
	}
}

func (p *parser) targets(w *Worker) error {
	for {
		key, name, err := p.pair("'Target or 'End target assignments")
		if err != nil {
			return err
		}
		switch {
		case strings.EqualFold(key.text, "'End target assignments"):
			return nil
		case strings.EqualFold(key.text, "'End target"):
			// A second 'End target, as the files QEMU's test suite gives
			// Iometer have (tp-qemu's iometer_multi_3disks.icf): what the
			// file means is plain, and the line is skipped. Iometer 1.1.0
			// itself (Worker::LoadConfigTargets) stops there: it reports
			// the line and leaves the rest of the manager list unread.
			p.ignore(key.n, "a second 'End target in worker %q's target assignments, skipped (Iometer 1.1.0 reports \"Expected a \"Target\" comment\" here and reads no further workers)", w.Name)
			continue
		case !strings.EqualFold(key.text, "'Target"):
			return p.errf(key.n, "%q in worker %q's target assignments; want 'Target", key.text, w.Name)
		}
		tk, typ, err := p.pair("'Target type")
		if err != nil {
			return err
		}
		if !strings.EqualFold(tk.text, "'Target type") {
			return p.errf(tk.n, "%q after target %q; want 'Target type", tk.text, name.text)
		}
		disk := strings.EqualFold(typ.text, "DISK")
		for {
			c, v, err := p.pair("'End target")
			if err != nil {
				return err
			}
			if strings.EqualFold(c.text, "'End target") {
				break
			}
			if !strings.EqualFold(c.text, "'Target manager ID, manager name") {
				return p.errf(c.n, "%q in target %q", c.text, name.text)
			}
			_ = v
		}
		if disk {
			w.Targets = append(w.Targets, name.text)
		} else {
			p.ignore(name.n, "network target %q of worker %q", name.text, w.Name)
		}
	}
}
