package main

// The module's functions against the project's length limit: a function
// longer than maxFunctionLines outside tests is split into steps that each
// say what they do.

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFunctionLines is the most lines a function outside tests may take,
// from its func keyword to its closing brace.
const maxFunctionLines = 80

// longFunctions returns "file:line: NAME is N lines" for each function
// (declared or literal) of the Go source src longer than limit lines.
func longFunctions(path string, src []byte, limit int) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		name := "a function literal"
		switch fn := n.(type) {
		case *ast.FuncDecl:
			if fn.Body == nil {
				return true
			}
			name = fn.Name.Name
		case *ast.FuncLit:
		default:
			return true
		}
		start, end := fset.Position(n.Pos()), fset.Position(n.End())
		if lines := end.Line - start.Line + 1; lines > limit {
			out = append(out, fmt.Sprintf("%s:%d: %s is %d lines, want at most %d", path, start.Line, name, lines, limit))
		}
		return true
	})
	return out, nil
}

// goSources returns the module's non-test Go files, relative to root,
// passing over the directories the go command ignores.
func goSources(root string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	return paths, err
}

func TestNoLongFunctions(t *testing.T) {
	root := moduleRoot(t)
	paths, err := goSources(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no Go files under %s", root)
	}
	for _, path := range paths {
		src, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Fatal(err)
		}
		long, err := longFunctions(path, src, maxFunctionLines)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range long {
			t.Error(l)
		}
	}
}

func TestLongFunctionsFinds(t *testing.T) {
	body := func(n int) string { return strings.Repeat("\t_ = 0\n", n) }
	tests := []struct {
		name, src string
		want      []string
	}{
		{"at the limit", "package p\n\nfunc f() {\n" + body(3) + "}\n", nil},
		{"over it", "package p\n\nfunc f() {\n" + body(4) + "}\n", []string{"p.go:3: f is 6 lines, want at most 5"}},
		{"a method", "package p\n\ntype T int\n\nfunc (T) m() {\n" + body(4) + "}\n", []string{"p.go:5: m is 6 lines, want at most 5"}},
		{"a function literal", "package p\n\nvar f = func() {\n" + body(4) + "}\n",
			[]string{"p.go:3: a function literal is 6 lines, want at most 5"}},
		{"a declaration without a body", "package p\n\nfunc f()\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := longFunctions("p.go", []byte(tt.src), 5)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
