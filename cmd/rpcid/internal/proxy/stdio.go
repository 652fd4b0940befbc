package proxy

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
// processes it started to close COMMAND's standard output and error: for
// standard output, how long a read may wait for data once COMMAND has exited
// (the time the proxy spends writing to a slow client does not count). A
// variable so that tests can shorten it.
var stdioWaitDelay = 2 * time.Second

// stdioSignalGrace is how long the proxy goes on relaying COMMAND's output,
// once COMMAND has exited after a signal to the proxy (or when one arrives
// after it exited), before it stops and exits; a second signal stops it at
// once. A client that still reads gets the rest (what a pipe holds takes it
// far less); one that stopped reading (the Python SDK cancels its reader
// before it sends SIGTERM, and sends SIGKILL 2 s later) does not hold the
// proxy. A variable so that tests can change it.
var stdioSignalGrace = 500 * time.Millisecond

// proxyStdio runs stdio mode: it starts cfg.command in a process group of
// its own (see ownProcessGroup), relays stdin to it recording request ids and
// its standard output to stdout restoring response ids, passes each signal
// arriving on sig on to it once, and returns its exit status.
//
// When a write to stdout fails, COMMAND's standard output is closed for
// reading and its standard input closed, and nothing more is relayed: a
// broken pipe (the client went away) is logged with -v, another error
// always. COMMAND is then waited for as at the end of any session, and the
// exit status is 1 if COMMAND's would be 0 (its output was not all
// delivered). When a write to COMMAND's standard input fails, stdin is
// closed if it is an io.Closer.
//
// COMMAND's output is relayed to its end after COMMAND exits, however slowly
// the client reads it; only a wait of stdioWaitDelay for more data (a process
// COMMAND started holds the pipe open) ends it, or a signal: once COMMAND has
// exited and a signal has arrived (before its exit or after), the relay goes
// on for stdioSignalGrace at most, less if another signal arrives, and what
// the client has not read by then is dropped. The exit status is then
// COMMAND's, 1 if that is 0 (its output was not all delivered).
//
// Every line is recorded before it is passed on, so no response can arrive
// before its request's id is remembered. Ids are remembered until answered;
// when MaxPending ids are remembered, the oldest is forgotten to make room
// (a stdio session has no exchanges that end, and a request that is never
// answered must not stop the others from being recorded).
func proxyStdio(cfg proxyConfig, stdin io.Reader, stdout, stderr io.Writer, sig <-chan os.Signal) int {
	lg := &proxyLog{w: stderr, verbose: cfg.verbose}
	table := &restore.Table{MaxPending: cfg.maxPending, OnRestore: lg.restored, OnUnmatched: lg.unmatched, OnAmbiguous: lg.ambiguous}
	if cfg.remap {
		lg.remapTable(table)
	}
	out := &clientOut{w: stdout, boundary: true}

	cmd := exec.Command(cfg.command[0], cfg.command[1:]...)
	if f, ok := stderr.(*os.File); ok {
		cmd.Stderr = f // COMMAND writes to it itself
	} else {
		cmd.Stderr = lg // copied, one write at a time with the proxy's lines
	}
	cmd.WaitDelay = stdioWaitDelay // for a standard error copied to lg
	ownProcessGroup(cmd)
	defer bindToProxy(cmd)()
	toCommand, err := cmd.StdinPipe()
	if err != nil {
		lg.printf("%v", err)
		return 1
	}
	// COMMAND's standard output is a pipe the proxy reads itself, not one
	// os/exec copies: exec's WaitDelay would close it while the proxy is
	// still writing what COMMAND wrote before it exited to a slow client.
	outR, outW, err := os.Pipe()
	if err != nil {
		lg.printf("%v", err)
		return 1
	}
	defer outR.Close()
	cmd.Stdout = outW
	err = cmd.Start()
	outW.Close() // COMMAND holds its own copy
	if err != nil {
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
	fromCommand := &commandOutput{f: outR}
	received := &lineCounter{r: fromCommand}
	go func() {
		in := &writeErr{w: toCommand}
		io.Copy(in, recordingReader(table, sent, cfg.maxMessageSize, lg, out.inject))
		// The client closed its end (or COMMAND stopped reading): COMMAND
		// sees the end of its input.
		toCommand.Close()
		if in.err != nil {
			// COMMAND closed its input (or the proxy did, its client
			// gone): nothing more is read, and the client's next write
			// fails as it would without the proxy instead of blocking
			// once the pipe is full.
			if c, ok := stdin.(io.Closer); ok {
				c.Close()
			}
		}
	}()

	var undelivered atomic.Bool // a write to stdout failed
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		werr := copyOut(out, restoringReader(table, received, cfg.maxMessageSize))
		if werr == nil {
			return
		}
		undelivered.Store(true)
		// The client cannot read what COMMAND writes: COMMAND sees what it
		// would see without the proxy, its standard output closed for
		// reading (its next write fails with EPIPE, and SIGPIPE ends it
		// unless it ignores the signal), and the end of its input. Nothing
		// is read and discarded, so a command that writes forever is not
		// kept alive by the proxy.
		if errors.Is(werr, syscall.EPIPE) {
			lg.verbosef("standard output closed: %v; closing the command's standard output and input", werr)
		} else {
			lg.printf("cannot write to standard output: %v; closing the command's standard output and input", werr)
		}
		outR.Close()
		toCommand.Close()
	}()

	waited := make(chan struct{})
	go func() {
		err = cmd.Wait()
		close(waited)
	}()
	// Each signal is passed on once while COMMAND runs; after it has
	// exited, a signal ends the relay (see above).
	signalled := false
	for running := true; running; {
		select {
		case s := <-sig:
			cmd.Process.Signal(s)
			signalled = true
		case <-waited:
			running = false
		}
	}
	fromCommand.exited()
	var grace <-chan time.Time
	if signalled {
		grace = time.After(stdioSignalGrace)
	}
	cut := false
	for relaying := true; relaying; {
		select {
		case <-relayed:
			relaying = false
		case <-sig:
			if grace == nil {
				grace = time.After(stdioSignalGrace)
				continue
			}
			cut, relaying = true, false // a second signal
		case <-grace:
			cut, relaying = true, false
		}
	}
	if cut && !closed(relayed) {
		// The relay may be blocked in a write to a client that does not
		// read: it is left to end with the process.
		undelivered.Store(true)
		lg.verbosef("stopped relaying the command's output after a signal, once the command had exited: what the client had not read is dropped")
	}
	if fromCommand.cut.Load() {
		lg.verbosef("stopped reading the command's standard output %v after it exited: a process it started holds it open", stdioWaitDelay)
	}
	if err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			lg.printf("%v", err)
		}
	}
	if cfg.verbose {
		st := table.Stats()
		lg.printf("%s (%d from the client, %d from the command); %s restored, %d unmatched%s%s",
			proxyCount(sent.lines()+received.lines(), "line"), sent.lines(), received.lines(),
			proxyCount(st.Restored, "id"), st.Unmatched, ambiguousNote(st.Ambiguous), remapNote(cfg.remap, st))
	}
	code := exitStatus(cmd.ProcessState)
	if code == 0 && undelivered.Load() {
		code = 1
	}
	return code
}

// closed reports whether c is closed.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// commandOutput is the read end of COMMAND's standard output. Once COMMAND
// has exited (exited), a read that waits stdioWaitDelay for data ends the
// output (cut): a process COMMAND started may hold the pipe open for ever.
// Each read gets the whole delay, so the time between reads, while the proxy
// writes to a slow client, never counts. Where pipes take no deadline, the
// output ends when every process holding it has closed it.
type commandOutput struct {
	f    *os.File
	done atomic.Bool
	cut  atomic.Bool
}

func (c *commandOutput) exited() {
	c.done.Store(true)
	c.f.SetReadDeadline(time.Now().Add(stdioWaitDelay)) // wakes a read waiting now
}

func (c *commandOutput) Read(p []byte) (int, error) {
	if c.done.Load() {
		c.f.SetReadDeadline(time.Now().Add(stdioWaitDelay))
	}
	n, err := c.f.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.cut.Store(true)
		return n, io.EOF
	}
	return n, err
}

// A writeErr writes to w and keeps the first error a write returned, so that
// a failing write can be told from a failing read.
type writeErr struct {
	w   io.Writer
	err error
}

func (w *writeErr) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

// recordingReader returns src's bytes unchanged, recording the request ids
// of each message of at most max bytes in table before the message is
// returned. Messages are framed as restore.NewStdioReader finds them: one
// per line (MCP's stdio transport) or Content-Length framed (LSP's base
// protocol).
//
// With a remapping table (-remap), each message is returned with the ids
// the table assigned, and its requests stay in flight until answered; a
// message whose requests do not fit within -max-pending is not sent, and
// refuse is given the line of error responses that answers it.
func recordingReader(table *restore.Table, src io.Reader, max int, lg *proxyLog, refuse func([]byte)) io.Reader {
	if table.Remap {
		return restore.NewStdioReader(src, max, func(dst, msg []byte) ([]byte, bool) {
			out, _, text, err := table.AppendRecorded(dst, msg, "")
			if err == nil {
				return out, text
			}
			if table.OnRefused != nil {
				table.OnRefused(err)
			}
			refuse(append(restore.AppendRefusal(nil, msg, "rpcid proxy: "+err.Error()), '\n'))
			// The whitespace around the message passes, as fn must.
			start := len(msg) - len(bytes.TrimLeft(msg, " \t\r\n"))
			end := len(bytes.TrimRight(msg, " \t\r\n"))
			dst = append(dst, msg[:start]...)
			return append(dst, msg[end:]...), text
		})
	}
	return restore.NewStdioReader(src, max, func(dst, msg []byte) ([]byte, bool) {
		ex, text, err := table.RecordText(msg)
		if err != nil {
			lg.printf("request ids not recorded, their responses will not be restored: %v", err)
		}
		// Ids stay remembered until answered; as orphans they are the ones
		// dropped, oldest first, when room is needed.
		table.Release(ex, false)
		return append(dst, msg...), text
	})
}

// restoringReader returns src's bytes with the response ids of each message
// of at most max bytes restored from table, framed as recordingReader's are;
// a Content-Length framed message whose length changed gets its
// Content-Length rewritten.
func restoringReader(table *restore.Table, src io.Reader, max int) *restore.StdioReader {
	return restore.NewStdioReader(src, max, func(dst, msg []byte) ([]byte, bool) {
		out, _, text := table.AppendRestoredText(dst, msg)
		return out, text
	}).(*restore.StdioReader)
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
