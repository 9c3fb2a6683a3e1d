//go:build unix

package players

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup makes the command the leader of a new process group,
// so that killProcessGroup reaches what it starts too (as `go run` does).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills the started command's process group.
func killProcessGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
