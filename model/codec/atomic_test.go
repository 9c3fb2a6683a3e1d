package codec

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		write   func(w io.Writer) error
		wantErr error
		want    string
	}{
		{"replaces", func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }, nil, "new"},
		{"empty", func(w io.Writer) error { return nil }, nil, ""},
		{"failing writer keeps old file", func(w io.Writer) error {
			if _, err := io.WriteString(w, strings.Repeat("partial", 20000)); err != nil {
				return err
			}
			return errBoom
		}, errBoom, "old"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "file.txt")
			if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := WriteFileAtomic(path, tc.write)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			got, rerr := os.ReadFile(path)
			if rerr != nil || string(got) != tc.want {
				t.Errorf("file holds %.20q (%v), want %q", got, rerr, tc.want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("directory holds %v: a temporary file was left behind", names)
			}
			if info, _ := os.Stat(path); err == nil && info.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, want 0644", info.Mode().Perm())
			}
		})
	}
}

func TestWriteFileAtomicNewFileAndMissingDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fresh")
	if err := WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "x" {
		t.Errorf("got %q", got)
	}
	missing := filepath.Join(dir, "no", "such", "dir", "f")
	if err := WriteFileAtomic(missing, func(io.Writer) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing directory: err = %v, want ErrNotExist", err)
	}
}
