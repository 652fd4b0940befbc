package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rpcid/rpcid/internal/restore"
)

// stdioWaitDelay bounds how long the proxy waits, after COMMAND exits, for
// processes it started to close COMMAND's standard output and error.
const stdioWaitDelay = 2 * time.Second

// proxyStdio runs stdio mode: it starts cfg.command, relays stdin to it
// recording request ids and its standard output to stdout restoring
// response ids, passes the signals arriving on sig on to it, and returns its
// exit status.
//
// Every line is recorded before it is passed on, so no response can arrive
// before its request's id is remembered. Ids are remembered until answered;
// when MaxPending ids are remembered, the oldest is forgotten to make room
// (a stdio session has no exchanges that end, and a request that is never
// answered must not stop the others from being recorded).
func proxyStdio(cfg proxyConfig, stdin io.Reader, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	lg := &proxyLog{w: stderr, verbose: cfg.verbose}
	table := &restore.Table{MaxPending: cfg.maxPending, OnRestore: lg.restored, OnUnmatched: lg.unmatched}

	cmd := exec.Command(cfg.command[0], cfg.command[1:]...)
	if f, ok := stderr.(*os.File); ok {
		cmd.Stderr = f // COMMAND writes to it itself
	} else {
		cmd.Stderr = lg // copied, one write at a time with the proxy's lines
	}
	cmd.WaitDelay = stdioWaitDelay
	toCommand, err := cmd.StdinPipe()
	if err != nil {
		lg.printf("%v", err)
		return 1
	}
	fromCommand, outW := io.Pipe()
	cmd.Stdout = outW
	if err := cmd.Start(); err != nil {
		lg.printf("%v", err)
		switch {
		case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
			return 127
		case errors.Is(err, fs.ErrPermission):
			return 126
		}
		return 1
	}

	var sent, received atomic.Int64 // lines (messages or batches) each way
	go func() {
		r := restore.NewLineReader(stdin, cfg.maxMessageSize, func(dst, line []byte) []byte {
			sent.Add(1)
			ex, err := table.Record(line)
			if err != nil {
				lg.printf("request ids not recorded, their responses will not be restored: %v", err)
			}
			// Ids stay remembered until answered; as orphans they are the
			// ones dropped, oldest first, when room is needed.
			table.Release(ex, false)
			return append(dst, line...)
		})
		io.Copy(toCommand, r)
		// The client closed its end (or COMMAND stopped reading): COMMAND
		// sees the end of its input.
		toCommand.Close()
	}()

	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		r := restore.NewLineReader(fromCommand, cfg.maxMessageSize, func(dst, line []byte) []byte {
			received.Add(1)
			out, _ := table.AppendRestored(dst, line)
			return out
		})
		if _, err := io.Copy(stdout, r); err != nil {
			// The client stopped reading: keep COMMAND from blocking on
			// a full pipe until it exits.
			io.Copy(io.Discard, r)
		}
	}()

	waited := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sig:
				cmd.Process.Signal(s)
			case <-waited:
				return
			}
		}
	}()
	err = cmd.Wait()
	close(waited)
	outW.Close()
	<-relayed
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			lg.printf("%v", err)
		}
	}
	if cfg.verbose {
		st := table.Stats()
		lg.printf("%s (%d from the client, %d from the command); %s restored, %d unmatched",
			proxyCount(sent.Load()+received.Load(), "message"), sent.Load(), received.Load(),
			proxyCount(st.Restored, "id"), st.Unmatched)
	}
	return exitStatus(cmd.ProcessState)
}

// exitStatus returns the status a shell reports for a process that ended as
// ps says: its exit code, or 128+N when signal N ended it.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
