package proxy

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
	"github.com/rpcid/rpcid/httpid"
	"github.com/rpcid/rpcid/internal/restore"
)

// defaultProxyListen is the address rpcid proxy listens on in HTTP mode when
// -listen is not given. Port 8939 has no assignment in the IANA service name
// registry and no common use.
const defaultProxyListen = "127.0.0.1:8939"

// defaultMaxBuffered is the default of -max-buffered: the bytes that
// request bodies and response bodies held to be examined may take at once,
// across all connections (eight messages of the largest size examined by
// default).
const defaultMaxBuffered = 128 << 20

// memoryHeadroom is what the proxy's memory limit (see run) allows beyond
// -max-buffered: connections, streams, the runtime.
const memoryHeadroom = 64 << 20

// defaultBodyTimeout is the default of -body-timeout: how long the proxy
// waits for the next byte of a request body before it gives up on the
// request and closes the connection.
const defaultBodyTimeout = 30 * time.Second

// proxySynopsis is printed to standard error after a usage error.
const proxySynopsis = `usage:
  rpcid proxy [-listen ADDR] [-remap] [-v] [-max-pending N] [-max-message-size BYTES] URL
  rpcid proxy [-remap] [-v] [-max-pending N] [-max-message-size BYTES] -- COMMAND [ARG ...]
`

// proxyConfig is a parsed rpcid proxy command line.
type proxyConfig struct {
	listen         string
	listenSet      bool
	verbose        bool
	remap          bool // send ids the proxy assigns (see remapLog)
	maxPending     int
	maxMessageSize int
	maxBuffered    int64         // HTTP mode: bytes held in buffers at once, across all requests
	bodyTimeout    time.Duration // HTTP mode: longest wait for a request body's next byte
	upstream       *url.URL      // HTTP mode
	rawURL         string
	command        []string // stdio mode
}

// run is "rpcid proxy".
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, code, ok := parseProxyArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	sig := make(chan os.Signal, 2)
	if cfg.command != nil {
		// SIGQUIT too: COMMAND runs in a process group of its own (see
		// ownProcessGroup), so a terminal's Ctrl-\ reaches only the proxy,
		// which would otherwise die of it (Go's default: a goroutine dump)
		// instead of passing it on.
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	} else {
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	}
	defer signal.Stop(sig)
	// A write to a closed standard output or error (a client that went
	// away, a script that read the start line and closed the pipe) fails
	// with EPIPE instead of killing the proxy: Go's runtime raises SIGPIPE
	// for such writes unless the program asks for the signal. In stdio mode
	// the proxy then closes COMMAND's standard output and input, waits for
	// it and reports its status. The signal is caught, not ignored, so
	// COMMAND starts with the default disposition and dies of SIGPIPE on its
	// own next write, as it would without the proxy.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	if cfg.command != nil {
		return proxyStdio(cfg, stdin, stdout, stderr, sig)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The garbage collector's goal: what -max-buffered lets requests
		// hold, and room for the rest. Without it the heap may grow to
		// twice what is live before a collection, and buffers that grew
		// to hold a message leave garbage behind them.
		debug.SetMemoryLimit(cfg.maxBuffered + memoryHeadroom)
	}
	return proxyHTTP(cfg, stderr, sig, nil)
}

// parseProxyArgs parses the arguments of rpcid proxy. When ok is false the
// command stops with status code: 0 after -h (usage on stdout), 2 after a
// usage error (reported on stderr).
func parseProxyArgs(args []string, stdout, stderr io.Writer) (cfg proxyConfig, code int, ok bool) {
	fs := flag.NewFlagSet("rpcid proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.listen, "listen", defaultProxyListen, "")
	fs.BoolVar(&cfg.verbose, "v", false, "")
	fs.BoolVar(&cfg.remap, "remap", false, "")
	fs.IntVar(&cfg.maxPending, "max-pending", httpid.DefaultMaxPending, "")
	fs.IntVar(&cfg.maxMessageSize, "max-message-size", httpid.DefaultMaxMessageSize, "")
	fs.Int64Var(&cfg.maxBuffered, "max-buffered", defaultMaxBuffered, "")
	fs.DurationVar(&cfg.bodyTimeout, "body-timeout", defaultBodyTimeout, "")
	usageErr := func(format string, a ...any) (proxyConfig, int, bool) {
		fmt.Fprintf(stderr, "rpcid proxy: "+format+"\n", a...)
		fmt.Fprint(stderr, proxySynopsis+"\"rpcid proxy -h\" prints the full usage.\n")
		return cfg, 2, false
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			Cmd.PrintHelp(stdout, nil) // the flags are described in the help text
			return cfg, 0, false
		}
		return usageErr("%v", err)
	}
	bufferedSet := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "listen":
			cfg.listenSet = true
		case "max-buffered":
			bufferedSet = true
		}
	})
	if !bufferedSet {
		// Room for two messages of the largest size examined, at least.
		cfg.maxBuffered = max(cfg.maxBuffered, 2*int64(cfg.maxMessageSize))
	}
	if cfg.maxPending <= 0 {
		return usageErr("-max-pending must be at least 1, not %d", cfg.maxPending)
	}
	if cfg.maxMessageSize <= 0 {
		return usageErr("-max-message-size must be at least 1, not %d", cfg.maxMessageSize)
	}
	if cfg.maxBuffered <= 0 {
		return usageErr("-max-buffered must be at least 1, not %d", cfg.maxBuffered)
	}
	if cfg.bodyTimeout <= 0 {
		return usageErr("-body-timeout must be positive, not %v", cfg.bodyTimeout)
	}
	rest := fs.Args()
	consumed := len(args) - len(rest)
	if consumed > 0 && args[consumed-1] == "--" {
		// stdio mode: everything after -- is the command.
		if len(rest) == 0 {
			return usageErr("no COMMAND after --")
		}
		if cfg.listenSet {
			return usageErr("-listen applies to HTTP mode only, not to a COMMAND")
		}
		cfg.command = rest
		return cfg, 0, true
	}
	switch {
	case len(rest) == 0:
		return usageErr("a URL or -- COMMAND is needed")
	case len(rest) > 1 && slices.Contains(rest, "--"):
		return usageErr("a URL or -- COMMAND, not both")
	case len(rest) > 1:
		return usageErr("one URL expected, got %d arguments (flags go before the URL; a COMMAND goes after --)", len(rest))
	}
	u, err := url.Parse(rest[0])
	shown := redactURL(rest[0]) // messages go to host logs: no tokens in them
	switch {
	case err != nil && !strings.Contains(rest[0], "://"):
		return usageErr("URL %q: scheme must be http or https (as in http://%s)", shown, shown)
	case err != nil:
		// Not url.Error's inner text, which may quote the password.
		return usageErr("URL %q: %s", shown, urlProblem(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return usageErr("URL %q: scheme must be http or https", shown)
	case u.Host == "":
		return usageErr("URL %q has no host", shown)
	case u.User != nil:
		return usageErr("URL %q holds user information (user@ or user:password@); the proxy adds no credentials of its own (the client's Authorization header passes through)", shown)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return usageErr("URL %q: port %s is out of range (1 to 65535)", shown, p)
		}
	}
	if _, _, err := net.SplitHostPort(cfg.listen); err != nil {
		return usageErr("-listen %q: %v", cfg.listen, err)
	}
	cfg.upstream, cfg.rawURL = u, rest[0]
	return cfg, 0, true
}

// proxyLog writes the proxy's lines to standard error, one write per line, so
// that lines from concurrent requests do not interleave.
type proxyLog struct {
	mu      sync.Mutex
	w       io.Writer
	verbose bool
	// query is the upstream URL's query as written (HTTP mode), a token
	// perhaps: wherever a line holds it after "?", as an error that quotes
	// a request's URL would, its values are written as redactURL writes
	// them.
	query string
}

// printf writes one line. Characters in it that would act on a terminal or
// change how the line reads (see terminalSafe) are written as Go escapes, so
// that text from a request, the upstream or COMMAND can neither forge a line
// nor drive the terminal; callers quote such text themselves (logText,
// logID) where an escape could be mistaken for the text.
func (l *proxyLog) printf(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if l.query != "" {
		msg = strings.ReplaceAll(msg, "?"+l.query, redactURL("?"+l.query))
	}
	line := "rpcid proxy: " + escapeUnsafe(msg) + "\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, line)
}

// Write writes b as it is, between the proxy's own lines.
func (l *proxyLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// verbosef writes one line when -v was given.
func (l *proxyLog) verbosef(format string, a ...any) {
	if l.verbose {
		l.printf(format, a...)
	}
}

// restored logs one restored id (-v).
func (l *proxyLog) restored(received, sent []byte) {
	l.verbosef("restored response id %s to %s", logID(received), logID(sent))
}

// unmatched logs a response id that matches no request id remembered (-v):
// none was sent, or it was forgotten (answered already, its exchange ended,
// or dropped to make room), or it was never recorded.
func (l *proxyLog) unmatched(received []byte) {
	l.verbosef("response id %s matches no remembered request id", logID(received))
}

// ambiguous logs a response id Equal to request ids the client sent in
// different spellings (1 and 1.0 pending, "1" received), left as received
// because the proxy cannot tell which the client means (-v).
func (l *proxyLog) ambiguous(received []byte) {
	l.verbosef("response id %s matches request ids sent in different spellings: not restored", logID(received))
}

// elsewhere logs a response id, found in the response to one HTTP request,
// that answered a JSON-RPC request sent in another HTTP request (-v): one
// on an event stream opened with GET, or in a POST's response whose own
// requests had no Equal id. The Transport matches a response to its own
// exchange's requests first, then to its MCP session's, then to any (see
// restore.Table), so this is said only when the response's own exchange
// had no Equal id to answer.
func (l *proxyLog) elsewhere(m restore.Elsewhere) {
	session, state := "", "which is still in flight"
	if m.Session {
		session = " in the same MCP session"
	}
	if m.Ended {
		state = "whose response had ended without it"
	}
	l.verbosef("response id %s answers request id %s of another HTTP request%s, %s", logID(m.Received), logID(m.Sent), session, state)
}

// ambiguousNote is the summary's mention of ambiguous ids, when there were any.
func ambiguousNote(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d ambiguous", n)
}

// maxLogID is the length in bytes above which an id is cut in log lines.
const maxLogID = 80

// logID returns the JSON text of an id for a log line: as it is, or its
// first maxLogID bytes (whole UTF-8 sequences) and the full length. JSON
// strings may hold C1 controls (U+009B starts a terminal escape), bidi
// controls (U+202E) and other characters that are unsafe to print raw (see
// terminalSafe), and an id that is not valid JSON may hold anything; such an
// id is shown Go-quoted and marked so: the text "\u202e" in the log is then
// the escape of a raw character, not the six bytes a JSON escape would be, so
// that "restored response id "\"\u202e\"" (Go-quoted) to "\u202e"" reads as
// the change it was.
func logID(raw []byte) string {
	n := len(raw)
	if n > maxLogID {
		n = maxLogID
		for n > 0 && !utf8.RuneStart(raw[n]) {
			n--
		}
	}
	text, quoted := string(raw[:n]), ""
	if !terminalSafe(string(raw)) {
		text, quoted = strconv.Quote(text), "Go-quoted"
	}
	switch {
	case n < len(raw) && quoted != "":
		return fmt.Sprintf("%s... (%s, %d bytes)", text, quoted, len(raw))
	case n < len(raw):
		return fmt.Sprintf("%s... (%d bytes)", text, len(raw))
	case quoted != "":
		return text + " (" + quoted + ")"
	}
	return text
}

// logText returns s for a log line: as it is when it is terminalSafe and
// does not start with a quote, else Go-quoted.
func logText(s string) string {
	if terminalSafe(s) && !strings.HasPrefix(s, `"`) {
		return s
	}
	return strconv.Quote(s)
}

// terminalSafe reports whether s is UTF-8 without unsafe runes.
func terminalSafe(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || base.UnsafeRune(r) {
			return false
		}
		i += n
	}
	return true
}

// escapeUnsafe returns s with each unsafe rune written as its Go escape
// (\n, \x1b, \u202e) and each byte that is not UTF-8 as \xNN.
func escapeUnsafe(s string) string {
	if terminalSafe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case base.UnsafeRune(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// redacted is what redactURL writes in place of a secret, as
// url.URL.Redacted does for a password.
const redacted = "xxxxx"

// redactURL returns s, a URL or URL reference as written, for a message:
// the password of its user information, each value of its query and
// fragment (`api_key=xxxxx`), and each part of them without "=" (a bare
// token) written as xxxxx; names, separators and everything else as
// written. It works on the text alone, so a URL that does not parse is
// redacted too; the user information is what precedes the last "@" before
// the first "/", "?", "#" or "\\" after "://". The README suggests tokens in the upstream URL's query, and
// the proxy's standard error goes to host logs.
func redactURL(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		auth := s[i+3:]
		end := strings.IndexAny(auth, "/?#\\") // a reverse solidus ends it, as WHATWG's URL parser reads http URLs
		if end < 0 {
			end = len(auth)
		}
		if at := strings.LastIndexByte(auth[:end], '@'); at >= 0 {
			if c := strings.IndexByte(auth[:at], ':'); c >= 0 && c+1 < at {
				s = s[:i+3] + auth[:c+1] + redacted + auth[at:]
			}
		}
	}
	q := strings.IndexAny(s, "?#")
	if q < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:q])
	for rest := s[q:]; rest != ""; {
		b.WriteByte(rest[0]) // a separator
		rest = rest[1:]
		n := strings.IndexAny(rest, "?&;#")
		if n < 0 {
			n = len(rest)
		}
		part := rest[:n]
		rest = rest[n:]
		switch k, v, ok := strings.Cut(part, "="); {
		case ok && v != "":
			b.WriteString(k + "=" + redacted)
		case ok:
			b.WriteString(part)
		case part != "":
			b.WriteString(redacted)
		}
	}
	return b.String()
}

// urlProblem returns what url.Parse found wrong in a URL, for a message,
// without quoting any of its text (an invalid port or escape would quote a
// password or token).
func urlProblem(err error) string {
	msg := errors.Unwrap(err).Error()
	if i := strings.IndexAny(msg, `"`); i >= 0 {
		msg = strings.TrimSpace(msg[:i])
	}
	return msg
}

// hostPath returns the path of u for the start line: "/" when it has none.
func hostPath(u *url.URL) string {
	p := u.EscapedPath()
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

// proxyCount returns "1 word" or "N words".
func proxyCount(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
