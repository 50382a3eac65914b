package iometer

import (
	"fmt"
	"strconv"
	"strings"
)

// Iometer 1.1.0 still reads the access specifications of files written
// before its 1998.05.21 build, which had no names and no per-worker
// assignment (AccessSpecList::LoadConfigOld, src/AccessSpecList.cpp):
//
//	'ACCESS SPECIFICATIONS
//	'size   % of size   % reads   % random   delay   burst
//	2048 100 67 100 0 1
//	'...the next section
//
// The line after the header is skipped whatever it holds. Each line is six
// whole numbers apart by white space: size, % of size, % reads, % random,
// delay, burst. Lines add up into one specification until their % of size
// reaches 100; a line of 0 % is dropped with a message, a sum above 100 or
// a value out of range fails the load, and lines left over at the next
// comment, short of 100 %, are dropped without a word. Every such
// specification is assigned to all workers by default, and a one-line one
// is named from its figures (SmartName: "512 B sequential reads",
// "4 KiB random 67% reads"); the others keep the "Untitled N" every new
// one starts with. A line starts from InitAccessSpecLine's defaults before
// it is read, so its alignment stays that default, 2048 bytes, whatever its
// size, and its reply size is 0.

// oldFormatAlign is the alignment Iometer leaves on an old line.
const oldFormatAlign = 2048

// The version numbers Iometer 1.1.0's loaders compare a file's with
// (versionOf): 1998.01.05 is the earliest GetVersion knows, and files
// before 1998.05.21 have the old access specifications
// (AccessSpecList::LoadConfig).
const (
	firstVersion      = 19980105
	namedSpecsVersion = 19980521
)

// oldSpecs says whether a file whose version line reads as v has its
// access specifications in the old format: the one rule Iometer 1.1.0's
// AccessSpecList::LoadConfig applies, whatever the section holds. A
// "Version 3.26.97" file is 30002600097 to it, so it reads its
// specifications in the named format.
func oldSpecs(v uint64) bool { return v < namedSpecsVersion }

// accessSpecsOld reads an old ACCESS SPECIFICATIONS section, as
// LoadConfigOld does; it stops at the next comment line, and takes an
// "'END access specifications" there as the section's end.
func (p *parser) accessSpecsOld() error {
	if !p.eof() {
		p.i++ // the column header, or whatever line is there
	}
	var cur Spec
	sum, untitled := 0, 0
	for {
		p.skipBlank()
		if p.eof() || isComment(p.lines[p.i].text) {
			if len(cur.Lines) > 0 {
				p.ignore(cur.Line, "old-format access specification lines %d to %d, dropped as Iometer drops them: their %% of size sum to %d, not 100", cur.Line, p.lines[p.i-1].n, sum)
			}
			if !p.eof() && hasPrefixFold(p.lines[p.i].text, "'END access specifications") {
				p.i++
			}
			return nil
		}
		l := p.lines[p.i]
		p.i++
		al, err := p.oldAccessLine(l)
		if err != nil {
			return err
		}
		if al.Weight == 0 {
			p.ignore(l.n, "an old-format access specification line of 0%% of size, dropped as Iometer drops it")
			continue
		}
		if len(cur.Lines) == 0 {
			cur = Spec{Line: l.n, Assignment: "ALL", OldFormat: true}
		}
		if len(cur.Lines) == MaxAccessLines {
			return p.errf(l.n, "an old-format access specification of more than %d lines", MaxAccessLines)
		}
		cur.Lines = append(cur.Lines, al)
		if sum += al.Weight; sum > 100 {
			return p.errf(l.n, "old-format access specification from line %d: its %% of size sum to %d, above 100 (Iometer: \"Invalid access specification\")", cur.Line, sum)
		}
		if sum < 100 {
			continue
		}
		if len(cur.Lines) == 1 {
			cur.Name = p.smartName(cur.Lines[0])
		} else {
			untitled++
			cur.Name = fmt.Sprintf("Untitled %d", untitled)
		}
		p.cfg.Specs = append(p.cfg.Specs, cur)
		cur, sum = Spec{}, 0
	}
}

// oldAccessLine reads "size % of size % reads % random delay burst".
func (p *parser) oldAccessLine(l line) (AccessLine, error) {
	f := strings.Fields(l.text)
	if len(f) != 6 {
		return AccessLine{}, p.errf(l.n, "%q: an old-format (before Iometer 1998.05.21) access specification line is six whole numbers apart by spaces: size, %% of size, %% reads, %% random, delay, burst", l.text)
	}
	// Iometer's defaults for the two fields the old format lacks: the
	// alignment InitAccessSpecLine leaves, and no reply.
	v := [8]int64{6: oldFormatAlign}
	names := [6]string{"size", "% of size", "% reads", "% random", "delay", "burst"}
	for i, s := range f {
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return AccessLine{}, p.errf(l.n, "%s %q is not a whole number", names[i], s)
		}
		v[i] = x
	}
	return p.checkAccessLine(l, v)
}

// smartName is Iometer's SmartName for a one-line old specification, made
// unique among the names so far as Iometer makes it (" 2", " 3", ...).
func (p *parser) smartName(l AccessLine) string {
	var name string
	switch l.Size {
	case 512:
		name = "512 B"
	case 1 << 20:
		name = "1 MiB"
	default:
		name = fmt.Sprintf("%d KiB", l.Size/1024)
	}
	switch l.RandomPct {
	case 0:
		name += " sequential"
	case 100:
		name += " random"
	default:
		name += fmt.Sprintf(" %d%% random", l.RandomPct)
	}
	switch l.ReadPct {
	case 0:
		name += " writes"
	case 100:
		name += " reads"
	default:
		name += fmt.Sprintf(" %d%% reads", l.ReadPct)
	}
	base := name
	for k := 2; p.cfg.specIndex(name) >= 0; k++ {
		name = fmt.Sprintf("%s %d", base, k)
	}
	return name
}
