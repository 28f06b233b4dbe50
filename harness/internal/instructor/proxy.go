package instructor

import (
	"bytes"
	_ "embed"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"github.com/rateladder/rateladder/harness/levels"
)

// A level's checker and child are written from its spec, read with
// go/parser. The spec's Test (and Fuzz) is generic over an interface and
// takes a constructor of it:
//
//	func Test[C Counter](t *testing.T, newCounter func(window time.Duration) C)
//
// The checker gives it a constructor of proxies, written into the spec's
// package (so its types need no qualifying), whose methods are the
// interface's and those of any interface the spec asserts to. The Err
// variables of the level's packages the spec imports are its sentinels.

// specShape is what a level's checker and child are written from.
type specShape struct {
	Mod, Dir string
	Number   int
	SeedEnv  string
	Ctor     signature // New: the interface Test is generic over, and an error for level 8
	Methods  []signature
	Imports  map[string]string // the packages the proxies' types name, by name
	// Sentinels are "viewerr.ErrNegativeViews", from SentinelImports (by path).
	Sentinels       []string
	SentinelImports map[string]string
}

// signature is a function's name and the types of its parameters and
// results, which the proxies name a0… and r0….
type signature struct {
	Name            string
	Params, Results []string
}

// readShape reads the spec of level l in the checkout root.
func readShape(root, modPath string, l levels.Level) (*specShape, error) {
	dir := l.SpecDir(l.ModuleOf(1))
	files, err := parseDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	sh := &specShape{Mod: modPath, Dir: l.Dir, Number: l.Number, SeedEnv: seedEnv, Imports: map[string]string{}, SentinelImports: map[string]string{}}
	ifaces := map[string]*ast.InterfaceType{}
	var test *ast.FuncType
	var asserted []*ast.InterfaceType
	imports := map[string]string{}
	for _, f := range files {
		for _, imp := range f.Imports {
			ip := strings.Trim(imp.Path.Value, `"`)
			if imports[path.Base(ip)] = ip; imp.Name != nil {
				imports[imp.Name.Name] = ip
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Name.Name == "Test" && n.Recv == nil {
					test = n.Type
				}
			case *ast.TypeSpec:
				if it, ok := n.Type.(*ast.InterfaceType); ok {
					ifaces[n.Name.Name] = it
				}
			case *ast.TypeAssertExpr:
				if it, ok := n.Type.(*ast.InterfaceType); ok {
					asserted = append(asserted, it)
				}
			}
			return true
		})
	}
	if test != nil && test.TypeParams != nil && len(test.TypeParams.List) == 1 && len(test.Params.List) == 2 {
		tp := test.TypeParams.List[0]
		ctor, _ := test.Params.List[1].Type.(*ast.FuncType)
		if cons, ok := tp.Type.(*ast.Ident); ok && ifaces[cons.Name] != nil && ctor != nil {
			if results := fields(ctor.Results); len(results) > 0 && results[0] == tp.Names[0].Name {
				results[0] = cons.Name
				sh.Ctor = signature{constructor, fields(ctor.Params), results}
				asserted = append([]*ast.InterfaceType{ifaces[cons.Name]}, asserted...)
			}
		}
	}
	if sh.Ctor.Name == "" {
		return nil, fmt.Errorf("%s: no func Test[T Interface](t *testing.T, newT func(…) T) of one of the spec's interfaces", dir)
	}
	for len(asserted) > 0 {
		it := asserted[0]
		asserted = asserted[1:]
		for _, m := range it.Methods.List {
			ft, ok := m.Type.(*ast.FuncType)
			if !ok {
				embedded, _ := m.Type.(*ast.Ident)
				if embedded == nil || ifaces[embedded.Name] == nil {
					return nil, fmt.Errorf("%s: an interface embeds %s, which is not one of the spec's", dir, types.ExprString(m.Type))
				}
				asserted = append(asserted, ifaces[embedded.Name])
			} else if name := m.Names[0].Name; !slices.ContainsFunc(sh.Methods, func(s signature) bool { return s.Name == name }) {
				sh.Methods = append(sh.Methods, signature{name, fields(ft.Params), fields(ft.Results)})
			}
		}
	}
	// The sentinels: the Err variables of the level's packages the spec
	// imports.
	for _, ip := range slices.Sorted(maps.Values(imports)) {
		rel, ok := strings.CutPrefix(ip, modPath+"/")
		if !ok || !l.HasRole(rel+"/x.go", levels.Code) || sh.SentinelImports[ip] != "" {
			continue
		}
		pkg, err := parseDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		for _, pf := range pkg {
			for _, d := range pf.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
					for _, vs := range gd.Specs {
						for _, n := range vs.(*ast.ValueSpec).Names {
							if strings.HasPrefix(n.Name, "Err") {
								sh.SentinelImports[ip] = pf.Name.Name
								sh.Sentinels = append(sh.Sentinels, pf.Name.Name+"."+n.Name)
							}
						}
					}
				}
			}
		}
	}
	var types []string
	for _, s := range append(sh.Methods, sh.Ctor) {
		types = append(append(types, s.Params...), s.Results...)
	}
	for _, m := range qualified.FindAllStringSubmatch(strings.Join(types, " "), -1) {
		if ip := imports[m[1]]; ip != "" && sh.SentinelImports[ip] == "" {
			sh.Imports[m[1]] = ip
		}
	}
	return sh, nil
}

// qualified finds the package names in a type's text.
var qualified = regexp.MustCompile(`\b(\w+)\.`)

// fields returns the types of a parameter or result list, one a value.
func fields(fl *ast.FieldList) []string {
	var out []string
	if fl != nil {
		for _, f := range fl.List {
			for range max(1, len(f.Names)) {
				out = append(out, types.ExprString(f.Type))
			}
		}
	}
	return out
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
		if name := e.Name(); strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && name != proxyFile {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// constructor is the function every level builds its value with.
const constructor = "New"

// proxyFile is the file of the proxies, in the spec's folder of the
// report's own copy.
const proxyFile = "ladder_checker.go"

// The sources the report writes: a level's child, which serves the
// student's code; its proxies, in the spec's package; and its checker.
var (
	//go:embed templates/child.go.tmpl
	childSource string
	//go:embed templates/proxy.go.tmpl
	proxySource string
	//go:embed templates/checker.go.tmpl
	checkerSource string
)

// writeSource writes one of the sources of sh into file, gofmt'ed.
func (sh *specShape) writeSource(src, file string) error {
	t, err := template.New("").Funcs(template.FuncMap{"join": func(s []string) string { return strings.Join(s, ", ") }}).Parse("// Written by the class report. DO NOT EDIT.\n\n" + src)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, sh); err != nil {
		return err
	}
	out := b.Bytes()
	if formatted, err := format.Source(out); err == nil {
		out = formatted // else the build says what is wrong
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, out, 0o644)
}
