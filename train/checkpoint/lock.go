package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockFile is the file in a run directory that a training process holds
// locked while it runs there.
const LockFile = "train.lock"

// ErrLocked is the error LockRunDir wraps when another process holds the
// run directory.
var ErrLocked = errors.New("in use by another training process")

// LockRunDir locks the run directory dir, which must exist, for this
// process, and returns the function that releases the lock. Two training
// processes in one directory would each write checkpoints, metrics and
// snapshots numbered like the other's, so a second one is refused with an
// error wrapping [ErrLocked] that gives the holder's process ID. The lock
// is the operating system's (flock where there is one): a process that
// ends, however it ends, releases it, and the file it leaves behind (the
// last holder's process ID, written in place since the lock belongs to
// that very file) locks nothing.
func LockRunDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock run directory: %w", err)
	}
	if err := lockFile(f); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%w (pid %s)", ErrLocked, strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("lock run directory %s: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}
