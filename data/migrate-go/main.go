// migrate-go reads Go API packages the way controller-gen reads them and prints a JSON model of their
// types for `opgen migrate` (src/migrate): declarations, struct fields with their json tags, doc comments
// as controller-gen turns them into descriptions, and the raw `+marker` lines tied to each node by
// controller-gen's association rules. Imports are resolved with `go list` from the package's own module,
// so types of other packages (same module or dependencies) are followed as controller-gen follows them.
// Standard library only: it ships as source with opgen and runs with the user's Go.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Marker is one `// +...` line.
type Marker struct {
	Text string `json:"text"`
	// FromGodoc: in the node's doc comment (controller-gen never moves those to the package).
	FromGodoc bool   `json:"fromGodoc"`
	Pos       string `json:"pos"`
	// InBlock: a `+` line of a /* */ comment, which controller-gen does not read as a marker (a doc
	// comment's stays in the description).
	InBlock bool `json:"inBlock,omitempty"`
}

// TypeExpr is a Go type expression.
type TypeExpr struct {
	// ident (basic or local named), named (another package), pointer, slice, array, map, interface, struct, unsupported
	Kind  string    `json:"kind"`
	Name  string    `json:"name,omitempty"`
	Pkg   string    `json:"pkg,omitempty"`
	Elem  *TypeExpr `json:"elem,omitempty"`
	Key   *TypeExpr `json:"key,omitempty"`
	Text  string    `json:"text,omitempty"`
	Basic bool      `json:"basic,omitempty"`
	// Alias: the name the Go file imports the package under (`cmmeta` in cmmeta.ObjectReference).
	Alias string `json:"alias,omitempty"`
}

type Field struct {
	Name     string    `json:"name"`
	Embedded bool      `json:"embedded"`
	HasTag   bool      `json:"hasTag"`
	JSONTag  string    `json:"jsonTag"`
	Doc      string    `json:"doc"`
	Markers  []Marker  `json:"markers"`
	Type     *TypeExpr `json:"type"`
	Pos      string    `json:"pos"`
}

type TypeDecl struct {
	Name    string    `json:"name"`
	File    string    `json:"file"`
	Pos     string    `json:"pos"`
	Doc     string    `json:"doc"`
	Markers []Marker  `json:"markers"`
	Alias   bool      `json:"alias"`
	Type    *TypeExpr `json:"type"`
	Fields  []Field   `json:"fields,omitempty"`
	// Constants of this type declared in the package (for +k8s:enum), in source order.
	Constants []Constant `json:"constants,omitempty"`
}

type Constant struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type Package struct {
	ImportPath string     `json:"importPath"`
	Name       string     `json:"name"`
	Dir        string     `json:"dir"`
	Module     string     `json:"module"`
	Root       bool       `json:"root"`
	Standard   bool       `json:"standard"`
	Markers    []Marker   `json:"markers"`
	Types      []TypeDecl `json:"types"`
	// Go files that declare types, in order (the TypeScript files follow them).
	Files []string `json:"files"`
}

type Output struct {
	Packages []*Package `json:"packages"`
	// The k8s.io/api version the module builds with ("" when it does not import it).
	KubernetesAPI string `json:"kubernetesApi"`
}

type listed struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Standard   bool
	Module     *struct{ Path, Dir, GoVersion, Version string }
	Error      *struct{ Err string }
}

type pkgState struct {
	info    listed
	parsed  bool
	out     *Package
	files   []*ast.File
	names   []string
	decls   map[string]*typeSite
	imports map[*ast.File]map[string]string // alias → import path
	emitted map[string]bool
	consts  map[string][]Constant
	markers map[ast.Node][]Marker
	pkgMark []Marker
}

type typeSite struct {
	file *ast.File
	name string
	gen  *ast.GenDecl
	spec *ast.TypeSpec
}

var (
	fset    = token.NewFileSet()
	byPath  = map[string]*pkgState{}
	stops   []string
	queue   []qualified
	ordered []*pkgState
)

type qualified struct{ pkg, name string }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func main() {
	var dirs []string
	args := os.Args[1:]
	for i := 0; i < len(args); i++ {
		if args[i] == "-stop" && i+1 < len(args) {
			stops = strings.Split(args[i+1], ",")
			i++
			continue
		}
		dirs = append(dirs, args[i])
	}
	if len(dirs) == 0 {
		fail("usage: migrate-go [-stop pkg,prefix/] <package dir or dir/...>...")
	}
	// Folders, or Go's dir/... patterns (every package below), as absolute paths go list accepts.
	patterns := make([]string, len(dirs))
	for i, d := range dirs {
		base, recursive := strings.CutSuffix(d, "/...")
		a, err := filepath.Abs(base)
		if err != nil {
			fail("%s: %v", d, err)
		}
		patterns[i] = a
		if recursive {
			patterns[i] = a + "/..."
		}
	}
	workDir := strings.TrimSuffix(patterns[0], "/...")
	rootDirs := listRoots(patterns, workDir)
	list(patterns, workDir, rootDirs)
	var roots []*pkgState
	for _, p := range byPath {
		if rootDirs[p.info.Dir] {
			roots = append(roots, p)
		}
	}
	if len(roots) == 0 {
		fail("no Go package in %s", strings.Join(dirs, " "))
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].info.ImportPath < roots[j].info.ImportPath })
	for _, r := range roots {
		parse(r)
		r.out.Root = true
		for _, n := range r.names {
			queue = append(queue, qualified{r.info.ImportPath, n})
		}
	}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		emit(q)
	}
	out := Output{}
	for _, p := range byPath {
		if p.info.Module != nil && p.info.Module.Path == "k8s.io/api" {
			out.KubernetesAPI = p.info.Module.Version
		}
	}
	for _, p := range ordered {
		out.Packages = append(out.Packages, p.out)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fail("%v", err)
	}
}

// listRoots is the set of package folders the patterns name.
func listRoots(patterns []string, workDir string) map[string]bool {
	out := map[string]bool{}
	for _, r := range goList(workDir, append([]string{"-json=ImportPath,Dir,Error"}, patterns...)) {
		if r.Error != nil {
			fail("%s: %s", r.Dir, strings.TrimSpace(r.Error.Err))
		}
		out[r.Dir] = true
	}
	return out
}

// list runs `go list -deps` in the first package's folder: it resolves every import through that module's
// go.mod (and go.work), as controller-gen's loader does.
func list(patterns []string, workDir string, rootDirs map[string]bool) {
	for _, l := range goList(workDir, append([]string{"-deps", "-json=ImportPath,Name,Dir,GoFiles,Standard,Module,Error"}, patterns...)) {
		byPath[l.ImportPath] = &pkgState{info: l}
		if rootDirs[l.Dir] && l.Error != nil {
			fail("%s: %s", l.Dir, strings.TrimSpace(l.Error.Err))
		}
	}
}

func goList(workDir string, args []string) []listed {
	cmd := exec.Command("go", append([]string{"list", "-e"}, args...)...)
	cmd.Dir = workDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		fail("go list: %s", msg)
	}
	var out []listed
	dec := json.NewDecoder(&stdout)
	for dec.More() {
		var l listed
		if err := dec.Decode(&l); err != nil {
			fail("go list output: %v", err)
		}
		out = append(out, l)
	}
	return out
}

func stopped(path string) bool {
	for _, s := range stops {
		if s == "" {
			continue
		}
		if strings.HasSuffix(s, "/") && strings.HasPrefix(path, s) || path == s {
			return true
		}
	}
	return false
}

func parse(p *pkgState) {
	if p.parsed {
		return
	}
	p.parsed = true
	mod := ""
	if p.info.Module != nil {
		mod = p.info.Module.Path
	}
	p.out = &Package{ImportPath: p.info.ImportPath, Name: p.info.Name, Dir: p.info.Dir, Module: mod, Standard: p.info.Standard, Markers: []Marker{}, Types: []TypeDecl{}, Files: []string{}}
	ordered = append(ordered, p)
	p.decls = map[string]*typeSite{}
	p.imports = map[*ast.File]map[string]string{}
	p.emitted = map[string]bool{}
	p.consts = map[string][]Constant{}
	p.markers = map[ast.Node][]Marker{}
	for _, name := range p.info.GoFiles {
		if stopped(p.info.ImportPath) && (strings.HasPrefix(name, "zz_generated") || strings.HasSuffix(name, ".pb.go")) {
			continue // generated code of the Kubernetes packages declares no API types
		}
		path := filepath.Join(p.info.Dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			fail("%v", err)
		}
		p.files = append(p.files, f)
		imps := map[string]string{}
		for _, is := range f.Imports {
			ip, _ := strconv.Unquote(is.Path.Value)
			alias := ""
			if is.Name != nil {
				alias = is.Name.Name
			} else if dep, ok := byPath[ip]; ok && dep.info.Name != "" {
				alias = dep.info.Name
			} else {
				alias = ip[strings.LastIndex(ip, "/")+1:]
			}
			imps[alias] = ip
		}
		p.imports[f] = imps
		associate(p, f)
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			switch g.Tok {
			case token.TYPE:
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					p.decls[ts.Name.Name] = &typeSite{file: f, name: name, gen: g, spec: ts}
					p.names = append(p.names, ts.Name.Name)
				}
			case token.CONST:
				collectConsts(p, g)
			}
		}
	}
}

// collectConsts records string constants by their declared type (for +k8s:enum), following iota-less
// implicit repetition of the type in a const block.
func collectConsts(p *pkgState, g *ast.GenDecl) {
	var lastType string
	for _, s := range g.Specs {
		vs := s.(*ast.ValueSpec)
		typ := ""
		if id, ok := vs.Type.(*ast.Ident); ok {
			typ = id.Name
		} else if vs.Type == nil && len(vs.Values) == 0 {
			typ = lastType
		}
		if vs.Type != nil || len(vs.Values) > 0 {
			lastType = typ
		}
		if typ == "" {
			continue
		}
		for i, n := range vs.Names {
			if i < len(vs.Values) {
				if bl, ok := vs.Values[i].(*ast.BasicLit); ok && bl.Kind == token.STRING {
					v, _ := strconv.Unquote(bl.Value)
					p.consts[typ] = append(p.consts[typ], Constant{Name: n.Name, Value: v})
				}
			}
		}
	}
}

func emit(q qualified) {
	p := byPath[q.pkg]
	if p == nil {
		return
	}
	parse(p)
	if p.emitted[q.name] {
		return
	}
	site := p.decls[q.name]
	if site == nil {
		return // reported by the TypeScript side as an unresolved type
	}
	if stopped(q.pkg) {
		// opgen has the structs of these packages (the runtime's Kubernetes types); their named strings,
		// maps and slices (corev1.PullPolicy, corev1.ResourceList) are migrated like any other type.
		if _, isStruct := site.spec.Type.(*ast.StructType); isStruct {
			return
		}
	}
	p.emitted[q.name] = true
	ts := site.spec
	td := TypeDecl{Name: ts.Name.Name, File: site.name, Pos: pos(ts.Name.Pos()), Markers: nonNil(p.markers[ts]), Alias: ts.Assign.IsValid()}
	td.Doc = docText(typeDoc(site))
	td.Constants = p.consts[ts.Name.Name]
	td.Type = expr(p, site.file, ts.Type)
	if st, ok := ts.Type.(*ast.StructType); ok {
		td.Type = &TypeExpr{Kind: "struct"}
		td.Fields = []Field{}
		for _, f := range st.Fields.List {
			tag := ""
			if f.Tag != nil {
				tag, _ = strconv.Unquote(f.Tag.Value)
			}
			jsonTag, hasTag := reflect.StructTag(tag).Lookup("json")
			base := Field{HasTag: hasTag, JSONTag: jsonTag, Doc: docText(f.Doc), Markers: nonNil(p.markers[f]), Type: expr(p, site.file, f.Type), Pos: pos(f.Pos())}
			if len(f.Names) == 0 {
				base.Embedded = true
				base.Name = embeddedName(f.Type)
				td.Fields = append(td.Fields, base)
				continue
			}
			for _, n := range f.Names {
				fl := base
				fl.Name = n.Name
				td.Fields = append(td.Fields, fl)
			}
		}
	}
	p.out.Types = append(p.out.Types, td)
	if len(p.out.Files) == 0 || p.out.Files[len(p.out.Files)-1] != site.name {
		seen := false
		for _, f := range p.out.Files {
			seen = seen || f == site.name
		}
		if !seen {
			p.out.Files = append(p.out.Files, site.name)
		}
	}
}

func nonNil(m []Marker) []Marker {
	if m == nil {
		return []Marker{}
	}
	return m
}

func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return ""
}

func pos(p token.Pos) string {
	position := fset.Position(p)
	return fmt.Sprintf("%s:%d:%d", position.Filename, position.Line, position.Column)
}

var predeclared = map[string]string{
	"bool": "bool", "string": "string", "int": "int", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
	"uint": "uint", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "uintptr": "uintptr",
	"byte": "uint8", "rune": "int32", "float32": "float32", "float64": "float64", "complex64": "complex64", "complex128": "complex128",
	"any": "any", "error": "error",
}

// expr describes a type expression and queues the named types it uses.
func expr(p *pkgState, f *ast.File, e ast.Expr) *TypeExpr {
	switch t := e.(type) {
	case *ast.Ident:
		if _, local := p.decls[t.Name]; local {
			queue = append(queue, qualified{p.info.ImportPath, t.Name})
			return &TypeExpr{Kind: "ident", Name: t.Name, Pkg: p.info.ImportPath}
		}
		if b, ok := predeclared[t.Name]; ok {
			if b == "any" {
				return &TypeExpr{Kind: "interface"}
			}
			return &TypeExpr{Kind: "ident", Name: b, Basic: true}
		}
		// Declared in a file of the package not parsed yet (decls fill in file order): resolve later.
		queue = append(queue, qualified{p.info.ImportPath, t.Name})
		return &TypeExpr{Kind: "ident", Name: t.Name, Pkg: p.info.ImportPath}
	case *ast.SelectorExpr:
		x, _ := t.X.(*ast.Ident)
		if x == nil {
			return &TypeExpr{Kind: "unsupported", Text: exprText(e)}
		}
		ip, ok := p.imports[f][x.Name]
		if !ok {
			return &TypeExpr{Kind: "unsupported", Text: exprText(e)}
		}
		queue = append(queue, qualified{ip, t.Sel.Name})
		return &TypeExpr{Kind: "named", Pkg: ip, Name: t.Sel.Name, Alias: x.Name}
	case *ast.StarExpr:
		return &TypeExpr{Kind: "pointer", Elem: expr(p, f, t.X)}
	case *ast.ArrayType:
		k := "slice"
		if t.Len != nil {
			k = "array"
		}
		return &TypeExpr{Kind: k, Elem: expr(p, f, t.Elt)}
	case *ast.MapType:
		return &TypeExpr{Kind: "map", Key: expr(p, f, t.Key), Elem: expr(p, f, t.Value)}
	case *ast.InterfaceType:
		return &TypeExpr{Kind: "interface"}
	case *ast.StructType:
		return &TypeExpr{Kind: "struct", Text: "inline struct"}
	case *ast.ParenExpr:
		return expr(p, f, t.X)
	}
	return &TypeExpr{Kind: "unsupported", Text: exprText(e)}
}

func exprText(e ast.Expr) string {
	var b bytes.Buffer
	p := fset.Position(e.Pos())
	end := fset.Position(e.End())
	src, err := os.ReadFile(p.Filename)
	if err == nil && end.Offset <= len(src) {
		b.Write(src[p.Offset:end.Offset])
	}
	return b.String()
}

func typeDoc(s *typeSite) *ast.CommentGroup {
	if s.spec.Doc != nil {
		return s.spec.Doc
	}
	// `type X struct` on its own: the doc comment belongs to the declaration.
	if s.gen.Lparen == token.NoPos {
		return s.gen.Doc
	}
	return nil
}

func isMarker(text string) bool {
	if !strings.HasPrefix(text, "//") {
		return false
	}
	s := strings.TrimSpace(text[2:])
	return strings.HasPrefix(s, "+")
}

// blockLines are the lines of a /* */ comment that read like markers (`+name`, after spaces and stars):
// controller-gen ignores them, but a TypeScript comment holding them would be read as markers.
func blockLines(c *ast.Comment, godoc bool) []Marker {
	if !strings.HasPrefix(c.Text, "/*") {
		return nil
	}
	var out []Marker
	offset := 0
	for _, line := range strings.Split(c.Text, "\n") {
		rest := strings.TrimLeft(line, " \t*")
		if offset == 0 {
			rest = strings.TrimLeft(line[2:], " \t*")
		}
		if strings.HasPrefix(rest, "+") {
			text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "*/"))
			at := c.Pos() + token.Pos(offset+len(line)-len(rest))
			out = append(out, Marker{Text: text, FromGodoc: godoc, Pos: pos(at), InBlock: true})
		}
		offset += len(line) + 1
	}
	return out
}

// docText is the description controller-gen makes of a doc comment: marker lines removed, Go's comment
// text (markers, first space, directives and blank runs gone), `/* */` lines trimmed, TODO lines dropped
// and a `---` line ending it outside fenced code blocks, newlines kept.
func docText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	var kept ast.CommentGroup
	block := false
	for _, c := range g.List {
		if isMarker(c.Text) {
			continue
		}
		block = block || strings.HasPrefix(c.Text, "/*")
		kept.List = append(kept.List, c)
	}
	lines := strings.Split(kept.Text(), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []string
	fenced := false
	for _, line := range lines {
		if block {
			line = strings.TrimSpace(line)
		}
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
		}
		if !fenced {
			if strings.HasPrefix(line, "TODO") {
				continue
			}
			if strings.HasPrefix(line, "---") {
				break
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// associate ties marker comments to the type specs and struct fields of a file, with controller-gen's
// rules: a node's markers are those of its doc comment and of the closest other comment group above it
// (after the previous node); comments of a file not tied to a type or field hold package markers, and
// comments inside functions, var/const blocks and trailing line comments hold none.
func associate(p *pkgState, f *ast.File) {
	groups := f.Comments
	next := 0 // first group not yet consumed
	lineComments := map[*ast.CommentGroup]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch t := n.(type) {
		case *ast.Field:
			if t.Comment != nil {
				lineComments[t.Comment] = true
			}
		case *ast.TypeSpec:
			if t.Comment != nil {
				lineComments[t.Comment] = true
			}
		case *ast.ValueSpec:
			if t.Comment != nil {
				lineComments[t.Comment] = true
			}
		case *ast.ImportSpec:
			if t.Comment != nil {
				lineComments[t.Comment] = true
			}
		}
		return true
	})
	markersIn := func(gs []*ast.CommentGroup, godoc bool) []Marker {
		var out []Marker
		for _, g := range gs {
			for _, c := range g.List {
				if isMarker(c.Text) {
					out = append(out, Marker{Text: strings.TrimSpace(c.Text[2:]), FromGodoc: godoc, Pos: pos(c.Pos())})
				} else {
					out = append(out, blockLines(c, godoc)...)
				}
			}
		}
		return out
	}
	// before returns the groups from `next` up to the node, minus trailing line comments, and consumes them.
	before := func(at token.Pos) []*ast.CommentGroup {
		var out []*ast.CommentGroup
		for next < len(groups) && groups[next].Pos() < at {
			if !lineComments[groups[next]] {
				out = append(out, groups[next])
			}
			next++
		}
		return out
	}
	skipTo := func(end token.Pos) {
		for next < len(groups) && groups[next].Pos() < end {
			next++
		}
	}
	// split: the doc group (if it is the last group), the closest other group above, and the rest.
	split := func(gs []*ast.CommentGroup, doc *ast.CommentGroup) (rest []*ast.CommentGroup, block *ast.CommentGroup, godoc *ast.CommentGroup) {
		if len(gs) > 0 && doc != nil && gs[len(gs)-1] == doc {
			godoc = doc
			gs = gs[:len(gs)-1]
		}
		if len(gs) > 0 {
			block = gs[len(gs)-1]
			rest = gs[:len(gs)-1]
		}
		return
	}
	one := func(g *ast.CommentGroup) []*ast.CommentGroup {
		if g == nil {
			return nil
		}
		return []*ast.CommentGroup{g}
	}
	var fields func(st *ast.StructType)
	fields = func(st *ast.StructType) {
		for _, fl := range st.Fields.List {
			_, block, godoc := split(before(fl.Pos()), fl.Doc)
			p.markers[fl] = append(markersIn(one(block), false), markersIn(one(godoc), true)...)
			skipTo(fl.End())
		}
		skipTo(st.End())
	}
	spec := func(ts *ast.TypeSpec, inherited []Marker) {
		_, block, godoc := split(before(ts.Pos()), ts.Doc)
		p.markers[ts] = append(append(inherited, markersIn(one(block), false)...), markersIn(one(godoc), true)...)
		if st, ok := ts.Type.(*ast.StructType); ok {
			fields(st)
		}
		skipTo(ts.End())
	}
	// Everything before the package clause and the package doc are package markers.
	p.pkgMark = append(p.pkgMark, markersIn(before(f.Name.End()), false)...)
	for _, d := range f.Decls {
		rest, block, godoc := split(before(d.Pos()), declDoc(d))
		p.pkgMark = append(p.pkgMark, markersIn(rest, false)...)
		g, isGen := d.(*ast.GenDecl)
		if isGen && g.Tok == token.TYPE && g.Lparen == token.NoPos && len(g.Specs) == 1 {
			spec(g.Specs[0].(*ast.TypeSpec), append(markersIn(one(block), false), markersIn(one(godoc), true)...))
		} else {
			p.pkgMark = append(p.pkgMark, markersIn(one(block), false)...)
			if isGen && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					spec(s.(*ast.TypeSpec), nil)
				}
			}
		}
		skipTo(d.End())
	}
	p.pkgMark = append(p.pkgMark, markersIn(before(token.Pos(1<<62)), false)...)
	p.out.Markers = nonNil(p.pkgMark)
}

func declDoc(d ast.Decl) *ast.CommentGroup {
	switch t := d.(type) {
	case *ast.GenDecl:
		return t.Doc
	case *ast.FuncDecl:
		return t.Doc
	}
	return nil
}
