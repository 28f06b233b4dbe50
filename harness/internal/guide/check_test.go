package guide

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// Check and its helpers live in a test file: only the guide's tests run
// them, and so the ladder command, which reads guides, does not build
// go/constant and math/big on a learner's first run.

// Check checks a level's guide against the repository at root: its parts
// are the registry's, its scope covers every part once, its time plan adds
// up to the scope's minutes, and every fact it quotes holds. Those are:
//
//   - every file path it names (a code span ending in .go, .md, .json or
//     .mod, or a link's target), relative to the level's folder or to root;
//   - every number it quotes from a spec, written as a link to the spec's
//     file: in a .go file, as a literal or a constant there, or as the value
//     of the link's title, a Go expression over the constants of the file
//     or of one function ("fleetExact: goroutines * each; limit", where
//     the function holds for the expressions after it too); in a
//     cases.json, as "N cases" of the whole spec or of "part K". A number
//     of requests or cases outside such a link is an error;
//   - every setting it quotes as a code span `Name: value`, which must be
//     written so in the level's README, stub or spec;
//   - every claim that parts fill so many minutes, which must be its scope;
//   - every mutant it names, among the names in the spec folders.
func Check(root string, l levels.Level, g *Guide) []error {
	sh, err := readShape(g)
	if err != nil {
		return []error{err}
	}
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	dir := filepath.Join(root, l.Dir)

	var want []string
	for _, p := range l.Parts {
		want = append(want, fmt.Sprintf("%d: %s", p.Number, p.Title))
	}
	for _, sec := range []struct {
		name  string
		parts []string
	}{
		{FollowUps, partNames(sh.Parts)},
		{HintScript, hintNames(sh.Hints)},
	} {
		if !slices.Equal(sec.parts, want) {
			add("section %q: parts %q, want the registry's %q", sec.name, sec.parts, want)
		}
	}
	for _, p := range sh.Parts {
		if p.Body == "" {
			add("follow-up part %d has no text", p.Number)
		}
	}

	scope := slices.Concat(g.Scope.In, g.Scope.Stretch, g.Scope.TakeHome)
	var numbers []int
	for _, p := range l.Parts {
		numbers = append(numbers, p.Number)
	}
	if !slices.Equal(scope, numbers) {
		add("section %q: the scope lists parts %v (in scope, stretch, take-home), want each of %v once, in order", TimePlan, scope, numbers)
	}
	total := 0
	for _, p := range sh.Plan {
		total += p.Minutes
	}
	if total != g.Scope.Minutes {
		add("section %q: the phases add up to %d minutes, and the scope says %d", TimePlan, total, g.Scope.Minutes)
	}

	text := strings.Join(sectionBodies(g), "\n")
	errs = append(errs, checkPaths(root, dir, text)...)
	errs = append(errs, checkNumbers(root, dir, text)...)
	errs = append(errs, checkSettings(dir, text)...)
	errs = append(errs, checkClaims(g, text)...)

	names := map[string]bool{}
	specs, _ := filepath.Glob(filepath.Join(dir, "spec"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "spec"))
	if own, _ := filepath.Glob(filepath.Join(dir, "spec", "*_test.go")); len(own) == 0 {
		return errs // a student copy: the specs' own tests, and their mutants, stay out of it
	}
	for _, sd := range append(specs, more...) {
		found, err := MutantNames(sd)
		if err != nil {
			add("%v", err)
			continue
		}
		for n := range found {
			names[n] = true
		}
	}
	cited := map[string]int{}
	for _, mk := range g.Mistakes {
		if !names[mk.Mutant] {
			add("%s:%d: mutant %q is not a name in spec/*mutants*_test.go", FileName, mk.Line, mk.Mutant)
		}
		if line, ok := cited[mk.Mutant]; ok {
			add("%s:%d: mutant %q is cited again (first at line %d)", FileName, mk.Line, mk.Mutant, line)
		}
		cited[mk.Mutant] = mk.Line
	}
	return errs
}

func partNames(ps []Part) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d: %s", p.Number, p.Title))
	}
	return out
}

func hintNames(ps []PartHints) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d: %s", p.Number, p.Title))
	}
	return out
}

func sectionBodies(g *Guide) []string {
	var out []string
	for _, s := range g.Sections {
		out = append(out, s.Body())
	}
	return out
}

var (
	codeSpanRE  = regexp.MustCompile("`([^`\n]+)`")
	linkRE      = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)(?:\s+"([^"]*)")?\)`)
	pathLikeRE  = regexp.MustCompile(`^[\w.\-*]+(/[\w.\-*]+)*\.(go|md|json|mod)$`)
	numberRE    = regexp.MustCompile(`\d[\d,_]*(?:\.\d+)?`)
	quotedRE    = regexp.MustCompile(`\b\d[\d,]*\s+(?:requests|cases)\b`)
	settingRE   = regexp.MustCompile(`^[A-Z]\w*: \S.*$`)
	caseCountRE = regexp.MustCompile(`^(\d+) cases?\b`)
	partRefRE   = regexp.MustCompile(`\bpart (\d+)\b`)
	claimRE     = regexp.MustCompile(`(?i)\bparts? (\d+)(?: (?:to|and) (\d+))? (?:fill|fills|fit|fits) (?:a|the|in) (\d+)-minute`)
)

// resolve finds a path the guide names, from the level's folder or root.
func resolve(root, dir, p string) (string, bool) {
	for _, base := range []string{dir, root} {
		full := filepath.Join(base, filepath.FromSlash(p))
		if strings.Contains(p, "*") {
			if m, _ := filepath.Glob(full); len(m) > 0 {
				return full, true
			}
			continue
		}
		if _, err := os.Stat(full); err == nil {
			return full, true
		}
	}
	return "", false
}

func checkPaths(root, dir, text string) []error {
	var errs []error
	var paths []string
	for _, m := range codeSpanRE.FindAllStringSubmatch(text, -1) {
		if pathLikeRE.MatchString(m[1]) {
			paths = append(paths, m[1])
		}
	}
	for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
		if !strings.Contains(m[2], "://") && !strings.HasPrefix(m[2], "#") {
			paths = append(paths, strings.SplitN(m[2], "#", 2)[0])
		}
	}
	for _, p := range paths {
		if _, ok := resolve(root, dir, p); !ok {
			errs = append(errs, fmt.Errorf("%s names %s, which is neither in %s nor in the repository's root", FileName, p, filepath.Base(dir)))
		}
	}
	return errs
}

// checkNumbers checks the numbers quoted from specs, and that every count
// of requests or cases is such a quote.
func checkNumbers(root, dir, text string) []error {
	var errs []error
	for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
		label, target, title := m[1], m[2], m[3]
		full, ok := resolve(root, dir, target)
		if !ok {
			continue // checkPaths says so
		}
		switch {
		case strings.HasSuffix(target, "cases.json"):
			if err := checkCaseCount(full, label); err != nil {
				errs = append(errs, fmt.Errorf("[%s](%s): %v", label, target, err))
			}
		case strings.HasSuffix(target, ".go"):
			if err := checkGoNumbers(full, label, title); err != nil {
				errs = append(errs, fmt.Errorf("[%s](%s): %v", label, target, err))
			}
		}
	}
	bare := linkRE.ReplaceAllString(codeSpanRE.ReplaceAllString(text, ""), "")
	for _, q := range quotedRE.FindAllString(bare, -1) {
		errs = append(errs, fmt.Errorf("%s quotes %q without a link to the spec that holds it", FileName, q))
	}
	return errs
}

func checkCaseCount(path, label string) error {
	m := caseCountRE.FindStringSubmatch(label)
	if m == nil {
		return fmt.Errorf("a link to a cases.json must start with \"N cases\"")
	}
	n, _ := strconv.Atoi(m[1])
	man, err := protocol.ReadManifest(path)
	if err != nil {
		return err
	}
	part := 0
	if p := partRefRE.FindStringSubmatch(label); p != nil {
		part, _ = strconv.Atoi(p[1])
	}
	got := 0
	for _, c := range man.Cases {
		if part == 0 || c.Part == part {
			got++
		}
	}
	if got != n {
		where := "the spec has"
		if part != 0 {
			where = fmt.Sprintf("part %d has", part)
		}
		return fmt.Errorf("says %d cases, and %s %d", n, where, got)
	}
	return nil
}

// checkGoNumbers checks the numbers of a link's label against a Go file:
// with a title, they are its expressions' values, in order; without, each
// is a literal or a constant of the file.
func checkGoNumbers(path, label, title string) error {
	var got []string
	for _, n := range numberRE.FindAllString(label, -1) {
		got = append(got, strings.NewReplacer(",", "", "_", "").Replace(n))
	}
	if len(got) == 0 {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	if title == "" {
		values := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && (lit.Kind == token.INT || lit.Kind == token.FLOAT) {
				values[constant.MakeFromLiteral(lit.Value, lit.Kind, 0).ExactString()] = true
			}
			return true
		})
		for _, v := range constsOf(f.Decls, nil) {
			values[v.ExactString()] = true
		}
		for _, n := range got {
			if !values[constant.MakeFromLiteral(n, numberKind(n), 0).ExactString()] {
				return fmt.Errorf("%s is neither a literal nor a constant in the file", n)
			}
		}
		return nil
	}
	var want []string
	scope := "" // a function named once holds for the expressions after it
	for _, e := range strings.Split(title, ";") {
		expr := strings.TrimSpace(e)
		if i := strings.Index(expr, ":"); i >= 0 {
			scope, expr = strings.TrimSpace(expr[:i]), strings.TrimSpace(expr[i+1:])
		}
		consts := constsOf(f.Decls, nil)
		if scope != "" {
			fn := funcNamed(f, scope)
			if fn == nil {
				return fmt.Errorf("no function %s in the file", scope)
			}
			consts = constsOf(nil, fn.Body, consts)
		}
		v, err := eval(expr, consts)
		if err != nil {
			return fmt.Errorf("title %q: %v", title, err)
		}
		want = append(want, v.ExactString())
	}
	var gotExact []string
	for _, n := range got {
		gotExact = append(gotExact, constant.MakeFromLiteral(n, numberKind(n), 0).ExactString())
	}
	if !slices.Equal(gotExact, want) {
		return fmt.Errorf("quotes %s, and the spec says %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	return nil
}

func numberKind(n string) token.Token {
	if strings.Contains(n, ".") {
		return token.FLOAT
	}
	return token.INT
}

func funcNamed(f *ast.File, name string) *ast.FuncDecl {
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == name {
			return fn
		}
	}
	return nil
}

// constsOf evaluates the constant declarations among decls, or in body, on
// top of the constants already known. One that cannot be evaluated (an
// iota, a call) is left out.
func constsOf(decls []ast.Decl, body *ast.BlockStmt, known ...map[string]constant.Value) map[string]constant.Value {
	out := map[string]constant.Value{}
	for _, k := range known {
		for n, v := range k {
			out[n] = v
		}
	}
	var gens []*ast.GenDecl
	for _, d := range decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
			gens = append(gens, gd)
		}
	}
	if body != nil {
		ast.Inspect(body, func(n ast.Node) bool {
			if gd, ok := n.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				gens = append(gens, gd)
			}
			return true
		})
	}
	for _, gd := range gens {
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					if v, err := evalExpr(vs.Values[i], out); err == nil {
						out[name.Name] = v
					}
				}
			}
		}
	}
	return out
}

func eval(expr string, consts map[string]constant.Value) (constant.Value, error) {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	return evalExpr(e, consts)
}

// evalExpr evaluates literals, constants and arithmetic on them.
func evalExpr(e ast.Expr, consts map[string]constant.Value) (constant.Value, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		return constant.MakeFromLiteral(e.Value, e.Kind, 0), nil
	case *ast.Ident:
		if v, ok := consts[e.Name]; ok {
			return v, nil
		}
		return nil, fmt.Errorf("no constant %s", e.Name)
	case *ast.ParenExpr:
		return evalExpr(e.X, consts)
	case *ast.BinaryExpr:
		x, err := evalExpr(e.X, consts)
		if err != nil {
			return nil, err
		}
		y, err := evalExpr(e.Y, consts)
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case token.ADD, token.SUB, token.MUL:
			return constant.BinaryOp(x, e.Op, y), nil
		case token.QUO:
			if constant.Sign(y) == 0 {
				return nil, fmt.Errorf("division by zero")
			}
			if x.Kind() == constant.Int && y.Kind() == constant.Int {
				return constant.BinaryOp(x, token.QUO_ASSIGN, y), nil
			}
			return constant.BinaryOp(x, token.QUO, y), nil
		}
	}
	return nil, fmt.Errorf("cannot evaluate %T", e)
}

// checkSettings checks every `Name: value` code span against the level's
// README, stub and spec, as written there.
func checkSettings(dir, text string) []error {
	var sources strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		base := filepath.Base(p)
		if base == FileName || base == "HINTS.md" || !(strings.HasSuffix(base, ".go") || strings.HasSuffix(base, ".md")) {
			return nil
		}
		data, _ := os.ReadFile(p)
		sources.Write(data)
		return nil
	})
	all := sources.String()
	var errs []error
	for _, m := range codeSpanRE.FindAllStringSubmatch(text, -1) {
		if settingRE.MatchString(m[1]) && !strings.Contains(all, m[1]) {
			errs = append(errs, fmt.Errorf("%s quotes the setting `%s`, which the level's README, stub and spec never write", FileName, m[1]))
		}
	}
	return errs
}

// checkClaims checks every "parts X to Y fill a N-minute" against the
// scope.
func checkClaims(g *Guide, text string) []error {
	var errs []error
	for _, m := range claimRE.FindAllStringSubmatch(text, -1) {
		first, _ := strconv.Atoi(m[1])
		last := first
		if m[2] != "" {
			last, _ = strconv.Atoi(m[2])
		}
		mins, _ := strconv.Atoi(m[3])
		in := g.Scope.In
		if mins != g.Scope.Minutes || len(in) == 0 || in[0] != first || in[len(in)-1] != last {
			errs = append(errs, fmt.Errorf("%s says %q, and its scope is parts %v in %d minutes", FileName, m[0], in, g.Scope.Minutes))
		}
	}
	return errs
}

// MutantNames returns every string literal in the Go files of dir whose
// names match *mutants*_test.go, unquoted: the mutants' names, which a
// guide's mistakes cite, are among them. It reads the Go source with
// go/parser rather than searching the text, so that how a name is spelled
// in the source (quotes, backquotes, escapes) does not matter. Import
// paths are left out. It fails if dir has no such file.
func MutantNames(dir string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*mutants*_test.go"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *mutants*_test.go file in %s", dir)
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err == nil {
					names[s] = true
				}
				return true
			})
		}
	}
	return names, nil
}
