// Package manpage writes manual pages in roff (man(7) macros) from a plain
// description of a command, so that clyde's pages are generated from the
// commands' own flags and texts (cmd/clyde's `clyde man`) and cannot drift
// from them. It knows nothing of the CLI library.
package manpage

import (
	"fmt"
	"io"
	"strings"
	"unicode"
)

// Page is one manual page.
type Page struct {
	Name    string // clyde-fs
	Section string // 1
	Source  string // clyde 1.2.3 (the footer)
	Manual  string // clyde manual (the header)
	Summary string // the NAME line after the dash
	// Synopsis lines, one command line each.
	Synopsis []string
	// Description is plain text: paragraphs separated by blank lines; lines
	// indented by two spaces or more are kept as they are (examples).
	Description string
	Options     []Option
	// Sections come after OPTIONS, in order (EXAMPLES, EXIT STATUS, ...).
	Sections []Section
	SeeAlso  []string // bonnie++(8), fio(1)
}

// Option is one flag.
type Option struct {
	Names   []string // with their dashes: --dir, -d
	Arg     string   // the value's placeholder, "" for a boolean
	Usage   string
	Default string // "" when none is worth printing
	Env     []string
}

// Section is a titled part of the page. Its body is Text, a list of
// Items, or Examples.
type Section struct {
	Title    string
	Text     string // as Page.Description
	Items    []Item
	Examples []Example
}

// Item is a tagged paragraph (an exit code, a file) or, with Tag "", a
// bullet.
type Item struct {
	Tag  string
	Text string
}

// Example is a command with what it does.
type Example struct {
	Comment string
	Command string
}

// Write renders p as roff.
func (p Page) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %s %s \"\" %s %s\n", quoteArg(strings.ToUpper(p.Name)), p.Section, quoteArg(p.Source), quoteArg(p.Manual))
	// Left-aligned and unhyphenated: flags and paths must not be split.
	b.WriteString(".ad l\n.nh\n.SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", escape(p.Name), escape(p.Summary))
	if len(p.Synopsis) > 0 {
		b.WriteString(".SH SYNOPSIS\n")
		for i, s := range p.Synopsis {
			if i > 0 {
				b.WriteString(".br\n")
			}
			writeSynopsis(&b, s)
		}
	}
	if strings.TrimSpace(p.Description) != "" {
		b.WriteString(".SH DESCRIPTION\n")
		writeText(&b, p.Description)
	}
	if len(p.Options) > 0 {
		b.WriteString(".SH OPTIONS\n")
		for _, o := range p.Options {
			writeOption(&b, o)
		}
	}
	for _, s := range p.Sections {
		fmt.Fprintf(&b, ".SH %s\n", quoteArg(strings.ToUpper(s.Title)))
		if s.Text != "" {
			writeText(&b, s.Text)
		}
		for _, it := range s.Items {
			if it.Tag == "" {
				b.WriteString(".IP \\(bu 2\n")
			} else {
				b.WriteString(".TP\n" + escapeLine(it.Tag) + "\n")
			}
			b.WriteString(escapeLine(it.Text) + "\n")
		}
		for _, e := range s.Examples {
			b.WriteString(".PP\n")
			if e.Comment != "" {
				b.WriteString(escapeLine(e.Comment) + "\n")
			}
			b.WriteString(".RS 4\n.EX\n" + escapeLine(e.Command) + "\n.EE\n.RE\n")
		}
	}
	if len(p.SeeAlso) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, s := range p.SeeAlso {
			name, sec, ok := strings.Cut(strings.TrimSuffix(s, ")"), "(")
			sep := ","
			if i == len(p.SeeAlso)-1 {
				sep = ""
			}
			if ok {
				fmt.Fprintf(&b, ".BR %s (%s)%s\n", escape(name), sec, sep)
			} else {
				b.WriteString(escapeLine(s+sep) + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSynopsis sets a command line in bold, its placeholders as they are.
func writeSynopsis(b *strings.Builder, s string) {
	name, rest, _ := strings.Cut(s, " ")
	fmt.Fprintf(b, ".B %s\n", escape(name))
	if rest != "" {
		b.WriteString(escapeLine(rest) + "\n")
	}
}

func writeOption(b *strings.Builder, o Option) {
	b.WriteString(".TP\n")
	var names []string
	for _, n := range o.Names {
		names = append(names, `\fB`+escape(n)+`\fR`)
	}
	tag := strings.Join(names, ", ")
	if o.Arg != "" {
		tag += ` \fI` + escape(o.Arg) + `\fR`
	}
	b.WriteString(tag + "\n")
	text := o.Usage
	if o.Default != "" {
		text += " (default: " + o.Default + ")"
	}
	if len(o.Env) > 0 {
		text += " [environment: " + strings.Join(o.Env, ", ") + "]"
	}
	b.WriteString(escapeLine(text) + "\n")
}

// writeText sets paragraphs; indented lines are kept unfilled.
func writeText(b *strings.Builder, text string) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	inExample, started := false, false
	for _, l := range lines {
		switch {
		case strings.TrimSpace(l) == "":
			if inExample {
				b.WriteString(".EE\n.RE\n")
				inExample = false
			}
			started = false
		case strings.HasPrefix(l, "  "):
			if !inExample {
				b.WriteString(".RS 4\n.EX\n")
				inExample = true
			}
			b.WriteString(escapeLine(strings.TrimSpace(l)) + "\n")
			started = true
		default:
			if inExample {
				b.WriteString(".EE\n.RE\n")
				inExample = false
				started = false
			}
			if !started {
				b.WriteString(".PP\n")
				started = true
			}
			b.WriteString(escapeLine(strings.TrimSpace(l)) + "\n")
		}
	}
	if inExample {
		b.WriteString(".EE\n.RE\n")
	}
}

// escapeLine escapes s for a text line: a leading dot or quote would make
// it a request.
func escapeLine(s string) string {
	s = escape(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// escape turns backslashes, hyphens and non-ASCII characters into roff's
// escapes, so groff needs no preprocessor and prints - as a minus (which
// copies and searches as ASCII).
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r == '\t':
			b.WriteByte(' ')
		case r > unicode.MaxASCII:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		case r < ' ':
			// control characters have no place in a page
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// quoteArg quotes a macro argument.
func quoteArg(s string) string {
	return `"` + strings.ReplaceAll(escape(s), `"`, `\(dq`) + `"`
}
