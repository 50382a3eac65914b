// Package fiojob reads fio job files for clyde block: [global] and named
// sections of option=value lines, include, ${VAR} from the environment, and
// compiles them into a blockbench.Plan that runs as fio would run the file
// (jobs between stonewalls at the same time). An option clyde does not
// support, and a line it cannot read, is refused with its file and line
// number; nothing is ignored.
//
// fio's other dialects clyde speaks live here too, so that blockbench knows
// none of them: fio's command-line rules (cmdline.go: which words a flag
// takes, the job file anywhere, the flags that override a job file's
// options) and fio's log files (fiolog.go, fiohist.go: the bw, iops,
// latency and histogram logs, their names and lines). The logs reach into a
// run through blockbench's record hook: a LogSpec is a Workload's Log.
package fiojob

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/internal/input"
	"github.com/clydebench/clyde/result"
)

// MaxFileBytes bounds a job file (and each file it includes): job files are
// a few kilobytes; a larger one is not a job file.
const MaxFileBytes = 1 << 20

// maxIncludeDepth bounds nested includes, which also ends include loops.
const maxIncludeDepth = 16

// Option is one option line: its name, its value when it has one ("bs=4k";
// "time_based" has none), and where it was written.
type Option struct {
	Name  string
	Value string
	// Written is the value as written, blanks after the '=' kept, for
	// fio's echo of it (echo.go); "" when it is Value.
	Written  string
	HasValue bool
	// Pos is "FILE:LINE", or the flag for an option from the command line.
	Pos string
}

// Section is one [name] section and its options, in order.
type Section struct {
	Name    string
	Pos     string
	Options []Option
	// Typed says the options come from fio's command line: fio parses
	// and echoes them as typed, a job file's section by option priority.
	Typed bool
}

// parseOrder is the order fio parses, and echoes, the section's options.
func (s Section) parseOrder() []Option {
	if s.Typed {
		return s.Options
	}
	return byFioPriority(s.Options)
}

// File is a parsed job file: its sections in order, [global] ones
// included (each applies to the jobs after it, as in fio).
type File struct {
	Path     string
	Sections []Section
}

// Env is what a job file may refer to: environment variables for ${VAR},
// and how to read an included file. Zero values use the process's: files
// are read by internal/input (regular files only, bounded, without blocking
// on a FIFO), and Context, when set, ends a read at the first ^C.
type Env struct {
	Getenv   func(string) (string, bool)
	ReadFile func(path string) ([]byte, error)
	Context  context.Context
}

func (e Env) getenv(k string) (string, bool) {
	if e.Getenv != nil {
		return e.Getenv(k)
	}
	return os.LookupEnv(k)
}

func (e Env) readFile(path string) ([]byte, error) {
	if e.ReadFile != nil {
		return e.ReadFile(path)
	}
	ctx := e.Context
	if ctx == nil {
		ctx = context.Background()
	}
	return input.ReadFile(ctx, path, MaxFileBytes)
}

// ParseFile reads the job file at path.
func ParseFile(path string, env Env) (*File, error) {
	data, err := env.readFile(path)
	if err != nil {
		return nil, result.Usagef(path, "cannot read the job file: %v", unwrapPath(err))
	}
	return Parse(path, data, env)
}

// Parse reads a job file's text; name is its path, for messages and for
// includes relative to it. Every error is a *result.UsageError whose flag is
// "FILE:LINE".
func Parse(name string, data []byte, env Env) (*File, error) {
	f := &File{Path: name}
	p := &parser{env: env, file: f, seen: map[string]bool{}}
	if err := p.parse(name, data, 0); err != nil {
		return nil, err
	}
	return f, nil
}

type parser struct {
	env  Env
	file *File
	seen map[string]bool // files on the include stack
}

func (p *parser) parse(name string, data []byte, depth int) error {
	key := filepath.Clean(name)
	if abs, err := filepath.Abs(name); err == nil {
		key = abs
	}
	if p.seen[key] {
		return result.Usagef(name, "includes itself (an include loop)")
	}
	p.seen[key] = true
	defer delete(p.seen, key)
	if strings.IndexByte(string(data), 0) >= 0 {
		return result.Usagef(name, "holds a NUL byte; a job file is text")
	}
	for i, raw := range strings.Split(string(data), "\n") {
		pos := name + ":" + strconv.Itoa(i+1)
		line := stripComment(raw)
		if line == "" {
			continue
		}
		if inc, ok := strings.CutPrefix(line, "include"); ok && (inc == "" || inc[0] == ' ' || inc[0] == '\t') {
			if err := p.include(pos, name, strings.TrimSpace(inc), depth); err != nil {
				return err
			}
			continue
		}
		if line[0] == '[' {
			if depth > 0 {
				return result.Usagef(pos, "an included file holds options only, not sections (as in fio)")
			}
			if !strings.HasSuffix(line, "]") {
				return result.Usagef(pos, "malformed section header; write [name]")
			}
			sec := strings.TrimSpace(line[1 : len(line)-1])
			if sec == "" || strings.ContainsAny(sec, "[]") {
				return result.Usagef(pos, "malformed section header; write [name]")
			}
			p.file.Sections = append(p.file.Sections, Section{Name: sec, Pos: pos})
			continue
		}
		opt, err := ParseOption(pos, line)
		if err != nil {
			return err
		}
		// fio expands ${VAR} in values, on the right of the '='.
		if opt.Value, err = p.expand(pos, opt.Value); err != nil {
			return err
		}
		if opt.Written != "" {
			opt.Written, _ = p.expand(pos, opt.Written) // Value's expansion went through
		}
		if len(p.file.Sections) == 0 {
			return result.Usagef(pos, "option %q comes before any section; put it under [global] or a [job]", opt.Name)
		}
		s := &p.file.Sections[len(p.file.Sections)-1]
		s.Options = append(s.Options, opt)
	}
	return nil
}

// stripComment is fio's strip_blank_end on one line: everything from the
// first ';' or '#' is a comment, wherever it stands ("numjobs=2 ; two
// clones" is numjobs=2, "filename=data # the file" names "data"), and
// blanks around what is left go.
func stripComment(line string) string {
	if i := strings.IndexAny(line, ";#"); i >= 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// include reads another job file into this one at the include line, as
// fio does; a relative path is relative to the including file.
func (p *parser) include(pos, from, path string, depth int) error {
	if path == "" {
		return result.Usagef(pos, "include needs a file name")
	}
	if len(p.file.Sections) == 0 {
		return result.Usagef(pos, "include comes before any section; its options belong to one")
	}
	if depth+1 >= maxIncludeDepth {
		return result.Usagef(pos, "include %s: more than %d files deep", path, maxIncludeDepth)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(from), path)
	}
	data, err := p.env.readFile(path)
	if err != nil {
		return result.Usagef(pos, "include %s: %v", path, unwrapPath(err))
	}
	return p.parse(path, data, depth+1)
}

// expand replaces ${VAR} with the environment's value (an unset one with
// nothing, as fio does) and fio's keywords $ncpus and $pagesize with this
// machine's; fio's $mb_memory and its arithmetic are refused.
func (p *parser) expand(pos, line string) (string, error) {
	if !strings.Contains(line, "$") {
		return line, nil
	}
	var b strings.Builder
	for i := 0; i < len(line); {
		c := line[i]
		if c != '$' {
			b.WriteByte(c)
			i++
			continue
		}
		rest := line[i+1:]
		switch {
		case strings.HasPrefix(rest, "{"):
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return "", result.Usagef(pos, "${ without a closing }")
			}
			name := rest[1:end]
			if name == "" || !validEnvName(name) {
				return "", result.Usagef(pos, "${%s} is not an environment variable name", name)
			}
			v, _ := p.env.getenv(name)
			b.WriteString(v)
			i += 1 + end + 1
		case strings.HasPrefix(rest, "ncpus"):
			b.WriteString(strconv.Itoa(runtime.NumCPU()))
			i += 1 + len("ncpus")
		case strings.HasPrefix(rest, "pagesize"):
			b.WriteString(strconv.Itoa(os.Getpagesize()))
			i += 1 + len("pagesize")
		case filenameKeyword(rest):
			// filename_format's keywords stay for that option to expand.
			b.WriteByte('$')
			i++
		case strings.HasPrefix(rest, "mb_memory"):
			return "", result.Usagef(pos, "$mb_memory is not supported; write the size")
		default:
			return "", result.Usagef(pos, "a $ must start ${VAR}, $ncpus or $pagesize (or $jobname, $jobnum, $filenum, $clientuid in filename_format)")
		}
	}
	return b.String(), nil
}

// filenameKeyword says s (what follows a '$') starts one of
// filename_format's keywords, in any case as make_filename finds them.
func filenameKeyword(s string) bool {
	for _, k := range fileKeywords {
		if len(s) >= len(k)-1 && strings.EqualFold(s[:len(k)-1], k[1:]) {
			return true
		}
	}
	return false
}

func validEnvName(s string) bool {
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// ParseOption reads one option as a job file line or a command-line flag
// writes it: "name=value" or "name". pos says where it came from.
func ParseOption(pos, s string) (Option, error) {
	name, written, has := strings.Cut(s, "=")
	name, value := strings.TrimSpace(name), strings.TrimSpace(written)
	switch {
	case name == "":
		return Option{}, result.Usagef(pos, "malformed line; write option=value")
	case !isOptionName(name):
		// Not quoted: a file that is no job file (/etc/shadow given by
		// mistake) must not have its lines copied to stderr and logs.
		return Option{}, result.Usagef(pos, "malformed option name; write option=value (letters, digits and _)")
	}
	opt := Option{Name: name, Value: value, HasValue: has, Pos: pos}
	if written != value {
		opt.Written = written
	}
	return opt, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// isOptionName reports whether name can be a fio option's name: letters,
// digits and underscores. Only such a name is quoted in a message.
func isOptionName(name string) bool {
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return name != ""
}
