//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package checkpoint

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// A run directory is held by one lock at a time; releasing it lets the
// next one in, and the refusal names the holder.
func TestLockRunDir(t *testing.T) {
	dir := t.TempDir()
	unlock, err := LockRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockRunDir(dir)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("a second lock: %v, want an error wrapping ErrLocked", err)
	}
	if pid := strconv.Itoa(os.Getpid()); !strings.Contains(err.Error(), "(pid "+pid+")") {
		t.Errorf("the refusal %q does not name the holder, pid %s", err, pid)
	}
	unlock()
	again, err := LockRunDir(dir)
	if err != nil {
		t.Fatalf("a lock after the release: %v", err)
	}
	again()
}

// A directory that does not exist cannot be locked, and says so.
func TestLockRunDirMissing(t *testing.T) {
	dir := t.TempDir() + "/missing"
	if _, err := LockRunDir(dir); err == nil || errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("LockRunDir(%s) = %v, want an error about the directory", dir, err)
	}
}
