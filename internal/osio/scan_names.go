//go:build !linux

package osio

// Scanner reads a directory's names (Linux parses getdents64 in place).
type Scanner struct{}

// NewScanner returns a scanner.
func NewScanner() *Scanner { return &Scanner{} }

// Scan calls fn with each entry's NUL-terminated name, skipping names that
// start with '.', in readdir order.
func (s *Scanner) Scan(d Dir, fn func(name []byte) error) error {
	names, err := d.ReadNames()
	if err != nil {
		return err
	}
	for _, n := range names {
		if n == "" || n[0] == '.' {
			continue
		}
		if err := fn(Name(n)); err != nil {
			return err
		}
	}
	return nil
}
