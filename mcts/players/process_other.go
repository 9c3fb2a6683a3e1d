//go:build !unix

package players

import "os/exec"

// ownProcessGroup does nothing where there are no process groups.
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup kills the started command alone.
func killProcessGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
