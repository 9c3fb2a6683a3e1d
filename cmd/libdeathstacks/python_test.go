package main

import (
	"archive/zip"
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// systemPython is Debian's Python, which has Debian's numpy and pytest
// (python3-numpy, python3-pytest); the python3 first on the PATH may not.
const systemPython = "/usr/bin/python3"

// pythonDir is the Python package, from this package's directory.
var pythonDir = filepath.Join("..", "..", "env", "python")

// TestPython builds the shared library once and runs the Python package's
// tests against it (env/python/tests), then builds the package's wheel
// with it as README's Install says, installs that into a virtual
// environment without Go on the PATH, offline, and runs an import check and
// the examples there. It skips, saying why, when Debian's Python lacks
// numpy or pytest, and in -short mode.
func TestPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the shared library's build takes a minute or two")
	}
	if err := exec.Command(systemPython, "-c", "import numpy, pytest").Run(); err != nil {
		t.Skipf("%s cannot import numpy and pytest (%v): apt-get install python3-numpy python3-pytest", systemPython, err)
	}
	// Reading the package's files makes go test's cache see their changes.
	readSources(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "libdeathstacks.so")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-buildmode=c-shared", "-o", lib, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildmode=c-shared: %v\n%s", err, out)
	}
	t.Run("pytest", func(t *testing.T) {
		cmd := exec.Command(systemPython, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")
		cmd.Dir = pythonDir
		cmd.Env = append(os.Environ(), "DEATHSTACKS_LIB="+lib, "PYTHONDONTWRITEBYTECODE=1")
		run(t, cmd)
	})
	t.Run("wheel", func(t *testing.T) {
		if err := exec.Command(systemPython, "-c", "import venv, ensurepip, setuptools, wheel, pip").Run(); err != nil {
			t.Skipf("%s cannot make virtual environments and wheels (%v): apt-get install python3-venv python3-setuptools python3-wheel python3-pip", systemPython, err)
		}
		src, err := filepath.Abs(pythonDir)
		if err != nil {
			t.Fatal(err)
		}
		// A copy, so that the build's files stay out of the source tree.
		tree := filepath.Join(dir, "src")
		if err := os.CopyFS(tree, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		// README's command (Install), with the library built above.
		dist := filepath.Join(dir, "dist")
		build := exec.Command(systemPython, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-q", "-w", dist, tree)
		build.Env = append(os.Environ(), "DEATHSTACKS_PREBUILT="+lib, "PIP_DISABLE_PIP_VERSION_CHECK=1")
		run(t, build)
		wheel := checkWheel(t, dist, lib)

		venv := filepath.Join(dir, "venv")
		run(t, exec.Command(systemPython, "-m", "venv", "--system-site-packages", venv))
		env := withoutGo(venv)
		inVenv := func(name string, args ...string) *exec.Cmd {
			cmd := exec.Command(name, args...)
			cmd.Dir, cmd.Env = dir, env
			return cmd
		}
		if out, err := inVenv("/bin/sh", "-c", "command -v go").CombinedOutput(); err == nil {
			t.Fatalf("go is on the virtual environment's PATH: %s", out)
		}
		python := filepath.Join(venv, "bin", "python")
		run(t, inVenv(python, "-m", "pip", "install", "--no-index", "-q", wheel))
		out := run(t, inVenv(python, "-c", `import os, deathstacks as ds
e = ds.env(); e.reset(seed=1)
print(ds.legal_moves()[0], ds.Player("greedy").choose(ds.START_FEN).move in ds.legal_moves())
print(os.path.dirname(ds.__file__)); print(ds._lib.lib._name)`))
		lines := strings.Fields(out)
		want := filepath.Join(venv, "lib")
		if len(lines) != 4 || lines[0] != "a6-1-a5" || lines[1] != "True" ||
			!strings.HasPrefix(lines[2], want) || lines[3] != filepath.Join(lines[2], "libdeathstacks.so") {
			t.Fatalf("the installed package answered %q, want its first move, a greedy move and itself with its library under %s", out, want)
		}
		// The examples at their smallest, from a folder outside the sources.
		out = run(t, inVenv(python, filepath.Join(tree, "examples", "reinforce_numpy.py"),
			"--minutes", "0.002", "--eval-games", "2", "--max-plies", "20"))
		if !strings.Contains(out, "score (win 1, draw 0.5) ") {
			t.Fatalf("examples/reinforce_numpy.py printed no score:\n%s", out)
		}
		if err := inVenv(python, "-c", "import torch").Run(); err != nil {
			t.Logf("examples/alphazero_torch.py not run: the virtual environment cannot import torch (%v): apt-get install python3-torch", err)
			return
		}
		out = run(t, inVenv(python, filepath.Join(tree, "examples", "alphazero_torch.py"),
			"--device", "cpu", "--threads", "1", "--blocks", "1", "--channels", "8", "--games", "2", "--steps", "3",
			"--batch", "16", "--window", "2000", "--minutes", "0.00001", "--eval-every", "0", "--final-games", "2",
			"--eval-sims", "8", "--out", filepath.Join(dir, "az.dsnn")))
		if !strings.Contains(out, "final: ") || !strings.Contains(out, "saved ") {
			t.Fatalf("examples/alphazero_torch.py printed no final score or saved file:\n%s", out)
		}
	})
}

// checkWheel returns the one wheel in dist after checking that it is a
// platform wheel for any Python 3 (py3-none-PLATFORM), installs into
// platlib and carries the library lib.
func checkWheel(t *testing.T, dist, lib string) string {
	t.Helper()
	wheels, err := filepath.Glob(filepath.Join(dist, "*.whl"))
	if err != nil || len(wheels) != 1 {
		t.Fatalf("%s holds the wheels %q (%v), want one", dist, wheels, err)
	}
	wheel := wheels[0]
	if name := filepath.Base(wheel); !strings.HasPrefix(name, "deathstacks-") || !strings.Contains(name, "-py3-none-") ||
		strings.HasSuffix(name, "-any.whl") {
		t.Fatalf("the wheel is %s, want deathstacks-VERSION-py3-none-PLATFORM.whl", name)
	}
	info, err := os.Stat(lib)
	if err != nil {
		t.Fatal(err)
	}
	r, err := zip.OpenReader(wheel)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var carries, platlib bool
	for _, f := range r.File {
		switch {
		case f.Name == "deathstacks/libdeathstacks.so":
			carries = f.UncompressedSize64 == uint64(info.Size())
		case strings.HasSuffix(f.Name, ".dist-info/WHEEL"):
			text, err := fs.ReadFile(r, f.Name)
			if err != nil {
				t.Fatal(err)
			}
			platlib = strings.Contains(string(text), "Root-Is-Purelib: false")
		}
	}
	if !carries || !platlib {
		t.Fatalf("%s: the library %s inside: %v; Root-Is-Purelib: false: %v; want both", wheel, lib, carries, platlib)
	}
	return wheel
}

// withoutGo is the environment of a user of the virtual environment venv
// who has no Go: PATH starts with venv's bin and lacks every folder holding
// a go command; nothing points at a library or at the sources.
func withoutGo(venv string) []string {
	path := []string{filepath.Join(venv, "bin")}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "go")); err != nil && d != "" {
			path = append(path, d)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PATH", "DEATHSTACKS_LIB", "DEATHSTACKS_PREBUILT", "PYTHONPATH", "VIRTUAL_ENV":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+strings.Join(path, string(filepath.ListSeparator)), "VIRTUAL_ENV="+venv,
		"PIP_DISABLE_PIP_VERSION_CHECK=1", "PYTHONDONTWRITEBYTECODE=1")
}

// run runs cmd and fails the test with its output if it fails.
func run(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out.String())
	}
	t.Logf("%s:\n%s", strings.Join(cmd.Args, " "), lastLines(out.String(), 5))
	return out.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// readSources reads every file of the Python package but build outputs.
func readSources(t *testing.T) {
	err := filepath.WalkDir(pythonDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "build" || name == "__pycache__" || strings.HasSuffix(name, ".egg-info") {
				return filepath.SkipDir
			}
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(io.Discard, f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
