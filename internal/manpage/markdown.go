package manpage

import (
	"regexp"
	"strings"
)

// ExamplesFrom collects the command lines of program's command cmd from the
// code blocks of a Markdown document (clyde's README recipes): each line
// that starts with "prog cmd " or "$ prog cmd ", with the comment line
// above it or the comment after it as what it does (else, for the first
// line of a section, the section's heading: "Compare two SSDs"). Synopsis lines (the
// first argument in brackets) are left out, and each line is taken once.
func ExamplesFrom(markdown, prog, cmd string) []Example {
	var out []Example
	seen := map[string]bool{}
	inCode := false
	comment, heading := "", ""
	prefix := prog + " " + cmd + " "
	for _, line := range strings.Split(markdown, "\n") {
		t := strings.TrimSpace(line)
		if !inCode && strings.HasPrefix(t, "#") {
			heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
			continue
		}
		if strings.HasPrefix(t, "```") {
			inCode, comment = !inCode, ""
			continue
		}
		if !inCode {
			continue
		}
		if strings.HasPrefix(t, "# ") {
			comment = strings.TrimPrefix(t, "# ")
			continue
		}
		t = strings.TrimPrefix(t, "$ ")
		if !strings.HasPrefix(t, prefix) || strings.HasPrefix(strings.TrimPrefix(t, prefix), "[") {
			comment = ""
			continue
		}
		c := comment
		if i := strings.Index(t, "  #"); i > 0 {
			t, c = strings.TrimSpace(t[:i]), strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(t[i:]), "#"))
		}
		comment = ""
		if c == "" && heading != "" {
			// the first example of a recipe without a comment of its own
			c, heading = heading, ""
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, Example{Comment: Inline(c), Command: t})
		}
	}
	return out
}

// BulletsUnder returns the bullets of the Markdown section headed heading
// (any level), each as one plain-text Item; continuation lines are joined.
func BulletsUnder(markdown, heading string) []Item {
	var out []Item
	in := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(line, "#") {
			if in {
				break
			}
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == heading
			continue
		}
		if !in {
			continue
		}
		switch t := strings.TrimSpace(line); {
		case strings.HasPrefix(line, "- "):
			out = append(out, Item{Text: strings.TrimPrefix(line, "- ")})
		case t != "" && len(out) > 0 && strings.HasPrefix(line, "  "):
			out[len(out)-1].Text += " " + t
		}
	}
	for i := range out {
		out[i].Text = Inline(out[i].Text)
	}
	return out
}

var (
	mdLink = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	mdCode = regexp.MustCompile("`([^`]*)`")
	mdBold = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// Inline turns Markdown's inline marks into plain text: links keep their
// text, code and bold their content.
func Inline(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdCode.ReplaceAllString(s, "$1")
	return mdBold.ReplaceAllString(s, "$1")
}
