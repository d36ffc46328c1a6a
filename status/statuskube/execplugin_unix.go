//go:build unix

package statuskube

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// inOwnGroup runs cmd in a process group of its own, killed whole when
// cmd's context ends: the plugin and whatever it started (a shell
// script's sleep) stop together.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	// The group's id is the plugin's pid (Setpgid).
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		return cmd.Process.Kill()
	}
	return nil
}

// killOnSignal kills cmd's process group when the process gets SIGINT or
// SIGTERM while cmd runs: the request that started the plugin may not
// observe the command's cancellation (client-go's discovery does not), and
// the process may exit before its deadline; the plugin must not outlive
// it. The returned function stops watching.
func killOnSignal(cmd *exec.Cmd) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			_ = killGroup(cmd)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
