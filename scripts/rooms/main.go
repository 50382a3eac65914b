// Command rooms measures how a package is built: lines per package across the
// module, and for one package the references between its files (a file
// using an identifier another file of the package declares), laid out on
// floors read from a text file, with the references that go upward (a
// lower floor's file using a higher floor's) counted. It draws the package
// as a house: the top floor first, each floor's files, and how many of its
// references go down and up. It also lists the functions longer than -long
// lines. Issue 33 asks blockbench for under 20 upward references and no
// function over ~60 lines; this is the tool that says where it stands.
//
//	go run ./scripts/rooms ./blockbench
//	go run ./scripts/rooms -floors scripts/rooms/blockbench.floors -long 60 -v ./blockbench
//
// How it counts. The package is type-checked (go/types, its imports from
// source) for the running GOOS/GOARCH, without its _test.go files unless
// -tests is given. A reference is one identifier in file A whose object
// (go/types Uses: a function, method, type, constant, variable or field)
// is declared in file B of the same package, A != B. "uses" counts every
// such identifier; "edges" counts distinct ordered pairs of files (A uses
// something of B), which is what "files import each other in N places"
// means. A reference goes upward when A's floor is below B's.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

func main() {
	floorsPath := flag.String("floors", "", "file of floors, the top floor first (`NAME: GLOB ...` a line); default scripts/rooms/<package>.floors when it exists")
	long := flag.Int("long", 60, "list functions longer than this many lines (0: none)")
	tests := flag.Bool("tests", false, "count the package's _test.go files too")
	verbose := flag.Bool("v", false, "list every upward edge with the identifiers it uses")
	noPackages := flag.Bool("nopackages", false, "skip the lines per package")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/rooms [flags] ./PACKAGE_DIR")
		os.Exit(2)
	}
	dir := filepath.Clean(flag.Arg(0))
	if !*noPackages {
		check(printPackageLines(os.Stdout, "."))
	}
	files, err := loadPackage(dir, *tests)
	check(err)
	refs := references(files)
	if *floorsPath == "" {
		def := filepath.Join("scripts", "rooms", filepath.Base(dir)+".floors")
		if _, err := os.Stat(def); err == nil {
			*floorsPath = def
		}
	}
	var floors []floor
	if *floorsPath != "" {
		floors, err = readFloors(*floorsPath)
		check(err)
	}
	drawHouse(os.Stdout, dir, *floorsPath, files, refs, floors, *verbose)
	if *long > 0 {
		check(printLongFuncs(os.Stdout, dir, *long))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "rooms:", err)
		os.Exit(1)
	}
}

// srcFile is one parsed file of the package.
type srcFile struct {
	name  string // base name
	ast   *ast.File
	lines int
}

type pkgFiles struct {
	fset  *token.FileSet
	files []*srcFile
	info  *types.Info
	pkg   *types.Package
}

// loadPackage parses and type-checks the package in dir for the running
// platform (go/build's file selection); type errors are reported and
// counted around, never fatal, so a package mid-move still measures.
func loadPackage(dir string, tests bool) (*pkgFiles, error) {
	bp, err := build.ImportDir(dir, 0)
	if err != nil {
		return nil, err
	}
	names := slices.Clone(bp.GoFiles)
	names = append(names, bp.CgoFiles...)
	if tests {
		names = append(names, bp.TestGoFiles...)
	}
	sort.Strings(names)
	p := &pkgFiles{fset: token.NewFileSet()}
	var asts []*ast.File
	for _, n := range names {
		f, err := parser.ParseFile(p.fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.files = append(p.files, &srcFile{name: n, ast: f, lines: p.fset.File(f.Pos()).LineCount()})
		asts = append(asts, f)
	}
	p.info = &types.Info{Uses: map[*ast.Ident]types.Object{}}
	var typeErrs int
	conf := types.Config{
		Importer: importer.ForCompiler(p.fset, "source", nil),
		Error: func(err error) {
			if typeErrs++; typeErrs <= 5 {
				fmt.Fprintln(os.Stderr, "rooms: type error (counted around):", err)
			}
		},
	}
	p.pkg, _ = conf.Check(bp.ImportPath, p.fset, asts, p.info)
	return p, nil
}

// ref is one file's uses of another file's declarations.
type ref struct {
	from, to string
	uses     int
	idents   map[string]bool
}

// references counts, for every ordered pair of files, the identifiers the
// first uses that the second declares.
func references(p *pkgFiles) map[[2]string]*ref {
	refs := map[[2]string]*ref{}
	for id, obj := range p.info.Uses {
		if obj == nil || obj.Pkg() != p.pkg || !obj.Pos().IsValid() {
			continue
		}
		from := filepath.Base(p.fset.File(id.Pos()).Name())
		to := filepath.Base(p.fset.File(obj.Pos()).Name())
		if from == to {
			continue
		}
		k := [2]string{from, to}
		r := refs[k]
		if r == nil {
			r = &ref{from: from, to: to, idents: map[string]bool{}}
			refs[k] = r
		}
		r.uses++
		r.idents[id.Name] = true
	}
	return refs
}

// floor is one floor of the house: a name and the file globs on it.
type floor struct {
	name  string
	globs []string
}

// readFloors reads `NAME: GLOB GLOB ...` lines, the top floor first; # starts
// a comment.
func readFloors(path string) ([]floor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var floors []floor
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, globs, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want a line NAME: GLOB GLOB", path, n)
		}
		for _, g := range strings.Fields(globs) {
			if _, err := filepath.Match(g, ""); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
		}
		floors = append(floors, floor{name: strings.TrimSpace(name), globs: strings.Fields(globs)})
	}
	return floors, sc.Err()
}

// level is a file's floor, counted from the basement (0); the first floor
// whose glob matches wins. Files on no floor are -1.
func level(floors []floor, file string) int {
	for i, fl := range floors {
		for _, g := range fl.globs {
			if ok, _ := filepath.Match(g, file); ok {
				return len(floors) - 1 - i
			}
		}
	}
	return -1
}

func drawHouse(w *os.File, dir, floorsPath string, p *pkgFiles, refs map[[2]string]*ref, floors []floor, verbose bool) {
	lines := 0
	for _, f := range p.files {
		lines += f.lines
	}
	uses := 0
	for _, r := range refs {
		uses += r.uses
	}
	fmt.Fprintf(w, "\n%s: %d files, %d lines; references between its files: %d edges (file pairs), %d uses (identifiers)\n",
		dir, len(p.files), lines, len(refs), uses)
	if len(floors) == 0 {
		fmt.Fprintln(w, "no floors given (-floors FILE): no house drawn")
		return
	}
	type stat struct {
		files                  []string
		lines                  int
		downE, upE, downU, upU int
		sameE, sameU           int
	}
	stats := make([]stat, len(floors)+1) // the last one: files on no floor
	at := func(lv int) *stat {
		if lv < 0 {
			return &stats[len(floors)]
		}
		return &stats[lv]
	}
	lvOf := map[string]int{}
	for _, f := range p.files {
		lv := level(floors, f.name)
		lvOf[f.name] = lv
		s := at(lv)
		s.files = append(s.files, f.name)
		s.lines += f.lines
	}
	var upEdges []*ref
	upE, upU := 0, 0
	for _, r := range refs {
		a, b := lvOf[r.from], lvOf[r.to]
		s := at(a)
		switch {
		case a < 0 || b < 0:
			continue
		case a < b:
			s.upE++
			s.upU += r.uses
			upE++
			upU += r.uses
			upEdges = append(upEdges, r)
		case a > b:
			s.downE++
			s.downU += r.uses
		default:
			s.sameE++
			s.sameU += r.uses
		}
	}
	fmt.Fprintf(w, "upward (a lower floor's file using a higher floor's): %d edges, %d uses  [floors: %s]\n\n", upE, upU, floorsPath)
	heads := make([]string, len(floors))
	width := 100
	for i := range floors {
		lv := len(floors) - 1 - i
		s := stats[lv]
		heads[i] = fmt.Sprintf("%d %s: %d files, %d lines; down %d/%d, same floor %d/%d, UP %d/%d (edges/uses)",
			lv, floors[i].name, len(s.files), s.lines, s.downE, s.downU, s.sameE, s.sameU, s.upE, s.upU)
		width = max(width, len(heads[i])+4)
	}
	fmt.Fprintf(w, " %s\n/%s\\\n", strings.Repeat("_", width-2), strings.Repeat(" ", width-2))
	for i := range floors {
		s := stats[len(floors)-1-i]
		fmt.Fprintf(w, "| %-*s |\n", width-4, heads[i])
		for _, l := range wrap(s.files, width-8) {
			fmt.Fprintf(w, "|     %-*s |\n", width-8, l)
		}
		fmt.Fprintf(w, "|%s|\n", strings.Repeat("-", width-2))
	}
	if s := stats[len(floors)]; len(s.files) > 0 {
		fmt.Fprintf(w, "on no floor (not counted): %s\n", strings.Join(s.files, " "))
	}
	sort.Slice(upEdges, func(i, j int) bool {
		if upEdges[i].uses != upEdges[j].uses {
			return upEdges[i].uses > upEdges[j].uses
		}
		return upEdges[i].from+upEdges[i].to < upEdges[j].from+upEdges[j].to
	})
	if verbose {
		fmt.Fprintln(w, "\nupward edges (from -> to: uses: identifiers):")
		for _, r := range upEdges {
			ids := make([]string, 0, len(r.idents))
			for id := range r.idents {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			fmt.Fprintf(w, "  %s (%d) -> %s (%d): %d: %s\n", r.from, lvOf[r.from], r.to, lvOf[r.to], r.uses, strings.Join(ids, " "))
		}
	}
}

// wrap joins words into lines of at most width characters.
func wrap(words []string, width int) []string {
	var out []string
	line := ""
	for _, w := range words {
		if line != "" && len(line)+1+len(w) > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// printLongFuncs lists the package's functions longer than max lines (from
// the func keyword to the closing brace), longest first: every platform's
// files, parsed alone (another OS's files are not type-checked here).
func printLongFuncs(w *os.File, dir string, max int) error {
	type fn struct {
		name  string
		file  string
		lines int
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	var long []fn
	for _, path := range names {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n <= max {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				name = "(" + types.ExprString(fd.Recv.List[0].Type) + ")." + name
			}
			long = append(long, fn{name, filepath.Base(path), n})
		}
	}
	sort.Slice(long, func(i, j int) bool {
		if long[i].lines != long[j].lines {
			return long[i].lines > long[j].lines
		}
		return long[i].name < long[j].name
	})
	fmt.Fprintf(w, "\nfunctions over %d lines in %s (every platform's files, tests apart): %d\n", max, dir, len(long))
	for _, f := range long {
		fmt.Fprintf(w, "  %4d  %-40s %s\n", f.lines, f.name, f.file)
	}
	return nil
}

// printPackageLines prints the lines of every package under root: its
// files for every platform, without and with tests.
func printPackageLines(w *os.File, root string) error {
	type pkgLines struct {
		dir               string
		files, src, tests int
	}
	byDir := map[string]*pkgLines{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		pl := byDir[dir]
		if pl == nil {
			pl = &pkgLines{dir: dir}
			byDir[dir] = pl
		}
		n := strings.Count(string(b), "\n")
		if strings.HasSuffix(path, "_test.go") {
			pl.tests += n
		} else {
			pl.src += n
			pl.files++
		}
		return nil
	})
	if err != nil {
		return err
	}
	var all []*pkgLines
	total := 0
	for _, pl := range byDir {
		all = append(all, pl)
		total += pl.src
	}
	sort.Slice(all, func(i, j int) bool { return all[i].src > all[j].src })
	fmt.Fprintf(w, "lines per package (all platforms' files; tests apart), %d lines of non-test Go in all:\n", total)
	fmt.Fprintf(w, "  %7s %7s %5s  %s\n", "lines", "tests", "files", "package")
	for _, pl := range all {
		mark := ""
		if pl.src > 5000 {
			mark = "  over 5k"
		}
		fmt.Fprintf(w, "  %7d %7d %5d  %s%s\n", pl.src, pl.tests, pl.files, pl.dir, mark)
	}
	return nil
}
