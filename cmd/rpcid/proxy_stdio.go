package main

import (
	"bytes"
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
	table := &restore.Table{MaxPending: cfg.maxPending, OnRestore: lg.restored, OnUnmatched: lg.unmatched, OnAmbiguous: lg.ambiguous}

	cmd := exec.Command(cfg.command[0], cfg.command[1:]...)
	if f, ok := stderr.(*os.File); ok {
		cmd.Stderr = f // COMMAND writes to it itself
	} else {
		cmd.Stderr = lg // copied, one write at a time with the proxy's lines
	}
	cmd.WaitDelay = stdioWaitDelay
	defer bindToProxy(cmd)()
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

	sent := &lineCounter{r: stdin}
	received := &lineCounter{r: fromCommand}
	go func() {
		io.Copy(toCommand, recordingReader(table, sent, cfg.maxMessageSize, lg))
		// The client closed its end (or COMMAND stopped reading): COMMAND
		// sees the end of its input.
		toCommand.Close()
	}()

	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		r := restoringReader(table, received, cfg.maxMessageSize)
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
		lg.printf("%s (%d from the client, %d from the command); %s restored, %d unmatched%s",
			proxyCount(sent.lines()+received.lines(), "line"), sent.lines(), received.lines(),
			proxyCount(st.Restored, "id"), st.Unmatched, ambiguousNote(st.Ambiguous))
	}
	return exitStatus(cmd.ProcessState)
}

// recordingReader returns src's bytes unchanged, recording the request ids
// of each line of at most max bytes in table before the line is returned.
func recordingReader(table *restore.Table, src io.Reader, max int, lg *proxyLog) io.Reader {
	return restore.NewLineReader(src, max, func(dst, line []byte) []byte {
		ex, err := table.Record(line)
		if err != nil {
			lg.printf("request ids not recorded, their responses will not be restored: %v", err)
		}
		// Ids stay remembered until answered; as orphans they are the ones
		// dropped, oldest first, when room is needed.
		table.Release(ex, false)
		return append(dst, line...)
	})
}

// restoringReader returns src's bytes with the response ids of each line of
// at most max bytes restored from table.
func restoringReader(table *restore.Table, src io.Reader, max int) io.Reader {
	return restore.NewLineReader(src, max, func(dst, line []byte) []byte {
		out, _ := table.AppendRestored(dst, line)
		return out
	})
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

// A lineCounter reads from r and counts the lines that are not blank, long
// ones included; in MCP's stdio framing each is one message or batch, but
// the count does not look inside (a line of text or binary garbage counts
// too), so the summary says lines, not messages. A last line without LF
// counts once r reports an error.
type lineCounter struct {
	r    io.Reader
	n    atomic.Int64
	open bool // the current line has a byte other than CR
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for b := p[:n]; len(b) > 0; {
		i := bytes.IndexByte(b, '\n')
		seg := b
		if i >= 0 {
			seg, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(bytes.Trim(seg, "\r")) > 0 {
			c.open = true
		}
		if i >= 0 && c.open {
			c.n.Add(1)
			c.open = false
		}
	}
	if err != nil && c.open {
		c.n.Add(1)
		c.open = false
	}
	return n, err
}

// lines returns the count so far.
func (c *lineCounter) lines() int64 { return c.n.Load() }
