package main

import (
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
// tests against it (env/python/tests), then installs the package into a
// virtual environment as a user would, offline. It skips, saying why, when
// Debian's Python lacks numpy or pytest, and in -short mode.
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
	t.Run("pip install", func(t *testing.T) {
		if err := exec.Command(systemPython, "-c", "import venv, ensurepip, setuptools, wheel").Run(); err != nil {
			t.Skipf("%s cannot make virtual environments with setuptools (%v): apt-get install python3-venv python3-setuptools python3-wheel", systemPython, err)
		}
		venv := filepath.Join(dir, "venv")
		run(t, exec.Command(systemPython, "-m", "venv", "--system-site-packages", venv))
		src, err := filepath.Abs(pythonDir)
		if err != nil {
			t.Fatal(err)
		}
		// A copy, so that the build's files stay out of the source tree.
		tree := filepath.Join(dir, "src")
		if err := os.CopyFS(tree, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
		pip := exec.Command(filepath.Join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-index", "-q", tree)
		pip.Env = append(os.Environ(), "DEATHSTACKS_PREBUILT="+lib, "PIP_DISABLE_PIP_VERSION_CHECK=1")
		run(t, pip)
		check := exec.Command(filepath.Join(venv, "bin", "python"), "-c",
			"import deathstacks as ds; e = ds.env(); e.reset(seed=1); print(ds.legal_moves()[0], ds.__file__)")
		check.Dir = dir
		out := run(t, check)
		if !strings.HasPrefix(out, "a6-1-a5 ") || !strings.Contains(out, "venv") {
			t.Fatalf("the installed package answered %q", out)
		}
	})
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
