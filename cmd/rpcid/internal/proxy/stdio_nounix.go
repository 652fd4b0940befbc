//go:build !unix

package proxy

import "os/exec"

// ownProcessGroup does nothing where there are no process groups to share.
func ownProcessGroup(cmd *exec.Cmd) {}
