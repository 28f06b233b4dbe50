package instructor

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rateladder/rateladder/harness/levels"
)

// A level's checker and child are written from its spec, read with
// go/parser: no spec holds code of the report's. The spec's exported
// Test is generic over an interface, and takes a constructor of it:
//
//	func Test[C Counter](t *testing.T, newCounter func(window time.Duration) C)
//
// The checker calls Test with a constructor of proxies, which build the
// level's value with New in the child, and whose methods are the
// interface's, and those of any interface the spec asserts an
// implementation to (level 8's Len). The level's sentinel errors are the
// exported Err variables of the packages of the level the spec imports
// (level 5's viewerr): an error keeps its identity across the wire when it
// matches one of them.

// constructor is the function of a level's package that the spec's Test
// is given: every level builds its value with New.
const constructor = "New"

// specShape is what a level's checker and child are written from.
type specShape struct {
	iface   string   // the interface Test is generic over, qualified: "spec.Counter"
	params  []string // the constructor's parameter types, qualified
	results []string // its results after the value: "error" for level 8
	methods []proxyMethod
	// imports are the packages the types above name, by path, with
	// their names.
	imports map[string]string
	// sentinels are the level's sentinel errors, "viewerr.ErrNegativeViews",
	// from the packages in sentinelImports.
	sentinels       []string
	sentinelImports map[string]string
}

// proxyMethod is a method of the proxy, with its types qualified.
type proxyMethod struct {
	name            string
	params, results []string
}

// readShape reads the spec of level l in the checkout root, whose module
// is modPath.
func readShape(root, modPath string, l levels.Level) (*specShape, error) {
	files, err := parseDir(filepath.Join(root, filepath.FromSlash(l.SpecDir(l.ModuleOf(1)))))
	if err != nil {
		return nil, err
	}
	sh := &specShape{imports: map[string]string{}, sentinelImports: map[string]string{}}
	ifaces := map[string]*ast.InterfaceType{}
	var test *ast.FuncDecl
	var testFile *ast.File
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.Name == "Test" && d.Recv == nil {
					test, testFile = d, f
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						if it, ok := ts.Type.(*ast.InterfaceType); ok {
							ifaces[ts.Name.Name] = it
						}
					}
				}
			}
		}
	}
	if test == nil || test.Type.TypeParams == nil || len(test.Type.TypeParams.List) != 1 || len(test.Type.Params.List) != 2 {
		return nil, fmt.Errorf("%s: no func Test[T Interface](t *testing.T, newT func(…) T)", l.SpecDir(l.ModuleOf(1)))
	}
	tp := test.Type.TypeParams.List[0]
	cons, ok := tp.Type.(*ast.Ident)
	ctor, isFunc := test.Type.Params.List[1].Type.(*ast.FuncType)
	if !ok || ifaces[cons.Name] == nil || !isFunc || ctor.Results == nil {
		return nil, fmt.Errorf("%s: Test's type parameter is not one of the spec's interfaces, or it takes no constructor", l.SpecDir(l.ModuleOf(1)))
	}
	sh.iface = "spec." + cons.Name
	q := qualifier{sh: sh, file: testFile, param: tp.Names[0].Name}
	sh.params = q.fields(ctor.Params)
	sh.results = q.fields(ctor.Results)
	if len(sh.results) == 0 || sh.results[0] != sh.iface {
		return nil, fmt.Errorf("%s: Test's constructor does not return its type parameter first", l.SpecDir(l.ModuleOf(1)))
	}
	sh.results = sh.results[1:]
	if err := sh.addMethods(ifaces, ifaces[cons.Name], qualifier{sh: sh, file: testFile}); err != nil {
		return nil, err
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if ta, ok := n.(*ast.TypeAssertExpr); ok {
				if it, ok := ta.Type.(*ast.InterfaceType); ok && err == nil {
					err = sh.addMethods(ifaces, it, qualifier{sh: sh, file: f})
				}
			}
			return true
		})
	}
	if q.err != nil || err != nil {
		return nil, fmt.Errorf("%s: %v", l.SpecDir(l.ModuleOf(1)), cmpOr(q.err, err))
	}
	return sh, sh.readSentinels(root, modPath, l, files)
}

func cmpOr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// parseDir parses the Go files of a package's folder, tests left out.
func parseDir(dir string) ([]*ast.File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// addMethods adds the methods of it, and of the spec's interfaces it
// embeds, to the proxy's.
func (sh *specShape) addMethods(ifaces map[string]*ast.InterfaceType, it *ast.InterfaceType, q qualifier) error {
	for _, m := range it.Methods.List {
		ft, ok := m.Type.(*ast.FuncType)
		if !ok {
			embedded, ok := m.Type.(*ast.Ident)
			if !ok || ifaces[embedded.Name] == nil {
				return fmt.Errorf("an interface embeds %s, which is not one of the spec's", types.ExprString(m.Type))
			}
			if err := sh.addMethods(ifaces, ifaces[embedded.Name], q); err != nil {
				return err
			}
			continue
		}
		name := m.Names[0].Name
		if !slices.ContainsFunc(sh.methods, func(pm proxyMethod) bool { return pm.name == name }) {
			sh.methods = append(sh.methods, proxyMethod{name: name, params: q.fields(ft.Params), results: q.fields(ft.Results)})
		}
	}
	return q.err
}

// readSentinels finds the sentinel errors in the packages of level l that
// the spec's files import.
func (sh *specShape) readSentinels(root, modPath string, l levels.Level, files []*ast.File) error {
	for _, f := range files {
		for _, imp := range f.Imports {
			ip := strings.Trim(imp.Path.Value, `"`)
			rel, ok := strings.CutPrefix(ip, modPath+"/")
			// A package of the level's code: what a Go file there is.
			if !ok || !l.HasRole(rel+"/x.go", levels.Code) || sh.sentinelImports[ip] != "" {
				continue
			}
			pkg, err := parseDir(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				return err
			}
			for _, pf := range pkg {
				for _, d := range pf.Decls {
					if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
						for _, s := range gd.Specs {
							for _, n := range s.(*ast.ValueSpec).Names {
								if strings.HasPrefix(n.Name, "Err") {
									sh.sentinelImports[ip] = pf.Name.Name
									sh.sentinels = append(sh.sentinels, pf.Name.Name+"."+n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	return nil
}

// qualifier writes a spec's type expressions as the checker's package
// sees them: the spec's own types as spec.Name, the type parameter param
// as the interface, and the packages they name recorded with their paths.
type qualifier struct {
	sh    *specShape
	file  *ast.File
	param string
	err   error
}

// fields returns the types of a parameter or result list, one a value.
func (q *qualifier) fields(fl *ast.FieldList) []string {
	var out []string
	if fl == nil {
		return nil
	}
	for _, f := range fl.List {
		t := q.typ(f.Type)
		for range max(1, len(f.Names)) {
			out = append(out, t)
		}
	}
	return out
}

// typ qualifies one type expression.
func (q *qualifier) typ(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		switch {
		case e.Name == q.param:
			return q.sh.iface
		case types.Universe.Lookup(e.Name) != nil:
			return e.Name
		}
		return "spec." + e.Name
	case *ast.SelectorExpr:
		pkg, _ := e.X.(*ast.Ident)
		for _, imp := range q.file.Imports {
			ip := strings.Trim(imp.Path.Value, `"`)
			if name := path.Base(ip); pkg != nil && (imp.Name != nil && imp.Name.Name == pkg.Name || imp.Name == nil && name == pkg.Name) {
				q.sh.imports[ip] = pkg.Name
				return pkg.Name + "." + e.Sel.Name
			}
		}
	case *ast.StarExpr:
		return "*" + q.typ(e.X)
	case *ast.ArrayType:
		if e.Len == nil {
			return "[]" + q.typ(e.Elt)
		}
	case *ast.MapType:
		return "map[" + q.typ(e.Key) + "]" + q.typ(e.Value)
	}
	if q.err == nil {
		q.err = fmt.Errorf("a proxy cannot carry a %s", types.ExprString(e))
	}
	return "any"
}

// proxySource writes the proxy of sh: a type whose methods call the
// child, and newProxies, which returns the constructor the spec's Test
// takes.
func proxySource(sh *specShape) string {
	var b strings.Builder
	args := func(types []string) (decl, names string) {
		var d, n []string
		for i, t := range types {
			d = append(d, fmt.Sprintf("a%d %s", i, t))
			n = append(n, fmt.Sprintf(", a%d", i))
		}
		return strings.Join(d, ", "), strings.Join(n, "")
	}
	results := func(types []string, from int) (decl, ptrs string) {
		var d, p []string
		for i, t := range types {
			d = append(d, fmt.Sprintf("r%d %s", i+from, t))
			p = append(p, fmt.Sprintf("&r%d", i+from))
		}
		return strings.Join(d, ", "), strings.Join(p, ", ")
	}
	pdecl, pnames := args(sh.params)
	rdecl, _ := results(append([]string{sh.iface}, sh.results...), 0)
	_, rptrs := results(sh.results, 1)
	fmt.Fprintf(&b, "\n// proxy is a %s whose methods run in the child.\ntype proxy struct{ o *remote.Object }\n", sh.iface)
	fmt.Fprintf(&b, "\n// newProxies returns a constructor of proxies, each of a value that %s\n// builds in the child.\n", constructor)
	ctorType := fmt.Sprintf("func(%s) (%s)", pdecl, rdecl)
	fmt.Fprintf(&b, "func newProxies(conn *remote.Conn) %s {\n\treturn %s {\n", ctorType, ctorType)
	fmt.Fprintf(&b, "\t\to := conn.New(%q, []any{%s}%s)\n", constructor, rptrs, pnames)
	if n := len(sh.results); n > 0 && sh.results[n-1] == "error" {
		// As a constructor that failed: no value beside its error.
		fmt.Fprintf(&b, "\t\tif r%d != nil {\n\t\t\treturn\n\t\t}\n", n)
	}
	b.WriteString("\t\tr0 = proxy{o}\n\t\treturn\n\t}\n}\n")
	for _, m := range sh.methods {
		pdecl, pnames := args(m.params)
		rdecl, rptrs := results(m.results, 0)
		if rdecl != "" {
			rdecl = "(" + rdecl + ")"
		}
		fmt.Fprintf(&b, "\nfunc (p proxy) %s(%s) %s { p.o.Call(%q, []any{%s}%s); return }\n", m.name, pdecl, rdecl, m.name, rptrs, pnames)
	}
	return b.String()
}
