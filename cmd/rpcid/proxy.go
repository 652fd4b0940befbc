package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/rpcid/rpcid/httpid"
)

// defaultProxyListen is the address rpcid proxy listens on in HTTP mode when
// -listen is not given. Port 8939 has no assignment in the IANA service name
// registry and no common use.
const defaultProxyListen = "127.0.0.1:8939"

// proxySynopsis is printed to standard error after a usage error.
const proxySynopsis = `usage:
  rpcid proxy [-listen ADDR] [-v] [-max-pending N] [-max-message-size BYTES] URL
  rpcid proxy [-v] [-max-pending N] [-max-message-size BYTES] -- COMMAND [ARG ...]
`

// proxyConfig is a parsed rpcid proxy command line.
type proxyConfig struct {
	listen         string
	listenSet      bool
	verbose        bool
	maxPending     int
	maxMessageSize int
	upstream       *url.URL // HTTP mode
	rawURL         string
	command        []string // stdio mode
}

// runProxy is "rpcid proxy".
func runProxy(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, code, ok := parseProxyArgs(args, stdout, stderr)
	if !ok {
		return code
	}
	sig := make(chan os.Signal, 2)
	if cfg.command != nil {
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	} else {
		signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	}
	defer signal.Stop(sig)
	if cfg.command != nil {
		return proxyStdio(cfg, stdin, stdout, stderr, sig)
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
	fs.IntVar(&cfg.maxPending, "max-pending", httpid.DefaultMaxPending, "")
	fs.IntVar(&cfg.maxMessageSize, "max-message-size", httpid.DefaultMaxMessageSize, "")
	usageErr := func(format string, a ...any) (proxyConfig, int, bool) {
		fmt.Fprintf(stderr, "rpcid proxy: "+format+"\n", a...)
		fmt.Fprint(stderr, proxySynopsis+"Run \"rpcid proxy -h\" for details.\n")
		return cfg, 2, false
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			printHelp(stdout, "proxy", nil) // the flags are described in the help text
			return cfg, 0, false
		}
		return usageErr("%v", err)
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "listen" {
			cfg.listenSet = true
		}
	})
	if cfg.maxPending <= 0 {
		return usageErr("-max-pending must be at least 1, not %d", cfg.maxPending)
	}
	if cfg.maxMessageSize <= 0 {
		return usageErr("-max-message-size must be at least 1, not %d", cfg.maxMessageSize)
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
	case len(rest) > 1:
		return usageErr("one URL expected, got %d arguments (flags go before the URL; a COMMAND goes after --)", len(rest))
	}
	u, err := url.Parse(rest[0])
	switch {
	case err != nil:
		return usageErr("%v", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return usageErr("URL %q: scheme must be http or https", rest[0])
	case u.Host == "":
		return usageErr("URL %q has no host", rest[0])
	case u.User != nil:
		return usageErr("URL %q holds credentials; the proxy adds none of its own (the client's Authorization header passes through)", rest[0])
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
}

// printf writes one line.
func (l *proxyLog) printf(format string, a ...any) {
	line := "rpcid proxy: " + fmt.Sprintf(format, a...) + "\n"
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

// unmatched logs a response id that matches no request sent (-v).
func (l *proxyLog) unmatched(received []byte) {
	l.verbosef("response id %s matches no request sent", logID(received))
}

// maxLogID is the length in bytes above which an id is cut in log lines.
const maxLogID = 80

// logID returns the JSON text of an id for a log line: as it is, or its
// first maxLogID bytes (whole UTF-8 sequences) and the full length. JSON text
// has no raw control characters, so a line stays one line.
func logID(raw []byte) string {
	if len(raw) <= maxLogID {
		return string(raw)
	}
	n := maxLogID
	for n > 0 && !utf8.RuneStart(raw[n]) {
		n--
	}
	return fmt.Sprintf("%s... (%d bytes)", raw[:n], len(raw))
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
