package check

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"

	"github.com/rpcid/rpcid/internal/scan"
)

// maxLine is the longest line of a JSON Lines capture that check examines,
// in bytes: a longer one (more than any JSON-RPC peer takes as one message;
// a few KB of gzip can hold gigabytes of one line) is reported and skipped:
// its first maxLine bytes are held, the rest is not.
var maxLine = 64 << 20

// linesFormat is a capture read line by line: JSON Lines, or one of the
// logs its first line may show it is (see line and lineFormat).
type linesFormat struct{ *capture }

// read reads a JSON Lines capture, one line at a time, examining
// lines of up to maxLine bytes.
func (s linesFormat) read(br *bufio.Reader) error {
	var long []byte
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: collect it in long, which is
			// reused for the next long line, up to maxLine bytes.
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > maxLine {
				n := int64(len(long))
				for errors.Is(err, bufio.ErrBufferFull) {
					line, err = br.ReadSlice('\n')
					n += int64(len(line))
				}
				s.bytes += n
				if err == nil || err == io.EOF {
					if err == nil {
						n-- // its LF
					}
					if s.nonBlank == 0 {
						s.replayHeld() // the capture is JSON Lines, as without them
					}
					s.nonBlank++
					s.report(position{line: lineNo}, levelError, kindInvalid, fmt.Sprintf("the line is %d bytes long, more than check reads as one message (%d MiB), and is not examined", n, maxLine>>20), nil)
					s.lostLine(position{line: lineNo}, long)
				}
				long = nil
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				continue
			}
			line = long
		}
		s.bytes += int64(len(line))
		if len(line) > 0 && (err == nil || err == io.EOF) {
			// (Bytes before a read error are not a line of the capture:
			// the error is reported instead.)
			s.atEOF = err == io.EOF
			s.line(lineNo, line)
			s.atEOF = false
		}
		if cap(long) > 16<<20 {
			long = nil // do not keep a huge buffer for the rest of the file
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lostLine records a line too long to examine, whose first bytes are
// start, as a text that may hold responses (see lostText): in a JSON Lines
// capture its direction marker says whose, and its start what it may
// answer; in an MCP host's log it may answer any request of any server.
func (s *capture) lostLine(pos position, start []byte) {
	what := fmt.Sprintf("is longer than %d MiB and was not examined", maxLine>>20)
	if s.log != logNone {
		s.lostAll = lostAny{s.seq, pos.String() + ", which may hold it, " + what}
		return
	}
	i := skipSpace(start, 0)
	dir := fromUnknown
	if i < len(start) && (start[i] == '>' || start[i] == '<') {
		dir = fromClient
		if start[i] == '<' {
			dir = fromServer
		}
		i = skipSpace(start, i+1)
	}
	s.lostText(pos, dir, start[i:], validPrefix(start[i:]), what)
}

// validPrefix returns how many bytes at the start of b are valid JSON so
// far: all of them, or those before the first the scanner refuses.
func validPrefix(b []byte) int {
	var sc []scan.Message
	if _, _, err := scanText(nil, &sc, b); err != nil && err.Offset >= 0 {
		return int(err.Offset)
	}
	return len(b)
}

// line handles one line of a JSON Lines capture.
func (s *capture) line(lineNo int, line []byte) {
	pos := position{line: lineNo}
	start := 0
	for start < len(line) && isJSONSpace(line[start]) {
		start++
	}
	end := len(line)
	for end > start && isJSONSpace(line[end-1]) {
		end--
	}
	if start == end {
		return
	}
	if s.nonBlank == 0 {
		kind, sent := logKind(line[start:end])
		if len(s.held) < maxHeld && end-start <= maxHeldLen && kind == logNone && (isTailHeader(line[start:end]) || mayLeadLog(line[start:end])) {
			// tail's header before the lines of a file (tail -f mcp*.log),
			// or a line that no JSON Lines capture starts with, as a
			// partial log may (tail -n, an excerpt starting with the
			// server's standard error): the next line says what the
			// capture is.
			s.held = append(s.held, heldLine{lineNo, bytes.Clone(line[:end]), start})
			return
		}
		s.log, s.logSent = kind, sent
		if len(s.held) == 0 && end == start+1 && (line[start] == '{' || line[start] == '[') {
			s.loneBracket, s.firstByte = true, string(line[start])
		}
		s.replayHeld()
	}
	s.lineOf(pos, line[:end], start)
}

// lineOf handles one non-blank line of a capture read line by line, without
// its trailing white space, once the format of the capture is known; start
// is the offset of its first non-blank byte.
func (s *capture) lineOf(pos position, line []byte, start int) {
	s.nonBlank++
	s.lineFormat().readLine(pos, line, start)
}

// A lineFormat reads the lines of a capture in one format read line by
// line, and feeds the messages they hold to the capture's matcher (see
// payload).
type lineFormat interface {
	// readLine reads one non-blank line, without its trailing white
	// space; start is the offset of its first non-blank byte.
	readLine(pos position, line []byte, start int)
}

// lineFormat returns the format of the lines of the capture, which its
// first line decided (see line).
func (s *capture) lineFormat() lineFormat {
	switch s.log {
	case logHost:
		return hostLog{s}
	case logVSCode:
		return vscodeLog{s}
	case logSDK:
		return sdkLog{s}
	}
	return jsonLines{s}
}

// jsonLines is the JSON Lines format: one message or batch per line,
// optionally after a direction marker.
type jsonLines struct{ *capture }

func (s jsonLines) readLine(pos position, line []byte, start int) {
	end := len(line)
	dir := fromUnknown
	switch line[start] {
	case '>':
		dir = fromClient
	case '<':
		dir = fromServer
	}
	if dir != fromUnknown {
		s.marked = true
		start++
		for start < end && isJSONSpace(line[start]) {
			start++
		}
		if start == end {
			s.invalid(pos, "", "empty message after the direction marker")
			return
		}
	}
	if bytes.HasPrefix(line[start:end], []byte("\xEF\xBB\xBF")) {
		// As when files that each start with one are joined with cat: a
		// peer's JSON parser fails on it as on any other byte.
		f := s.where()
		f.Column = start + 1
		s.report(pos, levelError, kindInvalid, fmt.Sprintf("not JSON at column %d: a UTF-8 byte order mark (EF BB BF) starts the message", f.Column), f)
		s.lostText(pos, dir, line[start+3:end], validPrefix(line[start+3:end]), "is not JSON (a byte order mark starts it)")
		return
	}
	if dir == fromUnknown {
		s.unmarkedLines++
		if s.firstUnmarked == 0 {
			s.firstUnmarked = pos.line
		}
	}
	s.payload(pos, "", dir, line[start:end], start+1)
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// jsonExtent returns the length of the JSON object or array at the start
// of b, found by its brackets outside strings, or len(b) when b does not
// start with one or it does not end: the scan then says what is wrong.
func jsonExtent(b []byte) int {
	if len(b) == 0 || b[0] != '{' && b[0] != '[' {
		return len(b)
	}
	if end, ok := bracketEnd(b); ok {
		return end
	}
	return len(b)
}

// bracketEnd returns the offset after the bracket that closes the object or
// array at b[0], found by the brackets outside strings, and false if none
// does.
func bracketEnd(b []byte) (int, bool) {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// startsLikeJSONText reports whether data, after JSON whitespace, starts
// with the bracket of an object or array, as every JSON-RPC message does.
func startsLikeJSONText(data []byte) bool {
	for _, c := range data {
		if !isJSONSpace(c) {
			return c == '{' || c == '['
		}
	}
	return false
}
