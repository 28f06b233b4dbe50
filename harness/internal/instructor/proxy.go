package instructor

import (
	"cmp"
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
// go/parser. The spec's Test is generic over an interface and takes a
// constructor of it:
//
//	func Test[C Counter](t *testing.T, newCounter func(window time.Duration) C)
//
// The checker gives it a constructor of proxies, whose methods are the
// interface's and those of any interface the spec asserts to. The Err
// variables of the level's packages the spec imports are its sentinels.

// constructor is the function every level builds its value with.
const constructor = "New"

// specShape is what a level's checker and child are written from.
type specShape struct {
	iface   string   // the interface Test is generic over, qualified: "spec.Counter"
	params  []string // the constructor's parameter types, qualified
	results []string // its results after the value: "error" for level 8
	methods []proxyMethod
	imports map[string]string // the packages the types name, by path
	// sentinels are "viewerr.ErrNegativeViews", from sentinelImports.
	sentinels       []string
	sentinelImports map[string]string
}

// proxyMethod is a method of the proxy, with its types qualified.
type proxyMethod struct {
	name            string
	params, results []string
}

// declared is a spec's interface, with the file that declares it.
type declared struct {
	it   *ast.InterfaceType
	file *ast.File
}

// readShape reads the spec of level l in the checkout root.
func readShape(root, modPath string, l levels.Level) (*specShape, error) {
	dir := l.SpecDir(l.ModuleOf(1))
	files, err := parseDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	sh := &specShape{imports: map[string]string{}, sentinelImports: map[string]string{}}
	ifaces := map[string]declared{}
	var test *ast.FuncType
	q := qualifier{sh: sh}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Name.Name == "Test" && n.Recv == nil {
					test, q.file = n.Type, f
				}
			case *ast.TypeSpec:
				if it, ok := n.Type.(*ast.InterfaceType); ok {
					ifaces[n.Name.Name] = declared{it, f}
				}
			}
			return true
		})
	}
	var ctor *ast.FuncType
	if test != nil && test.TypeParams != nil && len(test.TypeParams.List) == 1 && len(test.Params.List) == 2 {
		tp := test.TypeParams.List[0]
		cons, _ := tp.Type.(*ast.Ident)
		ctor, _ = test.Params.List[1].Type.(*ast.FuncType)
		if cons != nil && ifaces[cons.Name].it != nil && ctor != nil {
			sh.iface, q.param = "spec."+cons.Name, tp.Names[0].Name
			sh.params, sh.results = q.fields(ctor.Params), q.fields(ctor.Results)
			sh.addMethods(ifaces, ifaces[cons.Name], &q)
		}
	}
	if len(sh.results) == 0 || sh.results[0] != sh.iface {
		return nil, fmt.Errorf("%s: no func Test[T Interface](t *testing.T, newT func(…) T) of one of the spec's interfaces", dir)
	}
	sh.results = sh.results[1:]
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if ta, ok := n.(*ast.TypeAssertExpr); ok {
				if it, ok := ta.Type.(*ast.InterfaceType); ok {
					sh.addMethods(ifaces, declared{it, f}, &q)
				}
			}
			return true
		})
	}
	if q.err != nil {
		return nil, fmt.Errorf("%s: %v", dir, q.err)
	}
	return sh, sh.readSentinels(root, modPath, l, files)
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

// addMethods adds the methods of d, and of those it embeds, to the proxy's.
func (sh *specShape) addMethods(ifaces map[string]declared, d declared, q *qualifier) {
	for _, m := range d.it.Methods.List {
		ft, ok := m.Type.(*ast.FuncType)
		if !ok {
			if embedded, ok := m.Type.(*ast.Ident); ok && ifaces[embedded.Name].it != nil {
				sh.addMethods(ifaces, ifaces[embedded.Name], q)
			} else if q.err == nil {
				q.err = fmt.Errorf("an interface embeds %s, which is not one of the spec's", types.ExprString(m.Type))
			}
			continue
		}
		name := m.Names[0].Name
		if !slices.ContainsFunc(sh.methods, func(pm proxyMethod) bool { return pm.name == name }) {
			mq := qualifier{sh: sh, file: d.file} // no type parameter here
			sh.methods = append(sh.methods, proxyMethod{name: name, params: mq.fields(ft.Params), results: mq.fields(ft.Results)})
			q.err = cmp.Or(q.err, mq.err)
		}
	}
}

// readSentinels finds the sentinel errors in the packages of level l that
// the spec's files import.
func (sh *specShape) readSentinels(root, modPath string, l levels.Level, files []*ast.File) error {
	for _, f := range files {
		for _, imp := range f.Imports {
			ip := strings.Trim(imp.Path.Value, `"`)
			rel, ok := strings.CutPrefix(ip, modPath+"/")
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

// qualifier writes a spec's type expressions as the checker sees them:
// spec.Name, the type parameter as the interface, and records imports.
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
			ip, name := strings.Trim(imp.Path.Value, `"`), ""
			if name = path.Base(ip); imp.Name != nil {
				name = imp.Name.Name
			}
			if pkg != nil && name == pkg.Name {
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

// proxySource writes the proxy type of sh and newProxies, the constructor
// the spec's Test takes.
func proxySource(sh *specShape) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n// proxy is a %s whose methods run in the child.\ntype proxy struct{ o *remote.Object }\n", sh.iface)
	ctorType := fmt.Sprintf("func(%s) (%s)", signature("a", sh.params), signature("r", append([]string{sh.iface}, sh.results...)))
	fmt.Fprintf(&b, "\n// newProxies returns a constructor of proxies, each of a value that\n// %s builds in the child.\n", constructor)
	fmt.Fprintf(&b, "func newProxies(conn *remote.Conn) %s {\nreturn %s {\n", ctorType, ctorType)
	fmt.Fprintf(&b, "o := conn.New(%q, []any{%s}%s)\n", constructor, names(", &r%d", len(sh.results), 1)[min(2, len(sh.results)):], names(", a%d", len(sh.params), 0))
	if n := len(sh.results); n > 0 && sh.results[n-1] == "error" {
		// As a constructor that failed: no value beside its error.
		fmt.Fprintf(&b, "if r%d != nil {\nreturn\n}\n", n)
	}
	b.WriteString("r0 = proxy{o}\nreturn\n}\n}\n")
	for _, m := range sh.methods {
		fmt.Fprintf(&b, "\nfunc (p proxy) %s(%s) (%s) { p.o.Call(%q, []any{%s}%s); return }\n", m.name, signature("a", m.params), signature("r", m.results),
			m.name, names(", &r%d", len(m.results), 0)[min(2, len(m.results)):], names(", a%d", len(m.params), 0))
	}
	return b.String()
}

// signature writes "a0 T, a1 U" for types T and U, with prefix a.
func signature(prefix string, types []string) string {
	var s []string
	for i, t := range types {
		s = append(s, fmt.Sprintf("%s%d %s", prefix, i, t))
	}
	return strings.Join(s, ", ")
}

// names writes format for each of n numbers from from on.
func names(format string, n, from int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i+from)
	}
	return b.String()
}
