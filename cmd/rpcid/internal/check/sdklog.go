package check

import (
	"bytes"
	"strings"
)

// sdkLog is the log of go-sdk's mcp.LoggingTransport.
type sdkLog struct{ *capture }

// readLine handles one line of go-sdk's mcp.LoggingTransport log: "write: "
// and "read: " and the message its side wrote or read; other lines ("read
// error: EOF", anything else written to the same log) hold no message and
// are counted.
func (s sdkLog) readLine(pos position, line []byte, start int) {
	dir := s.logSent
	rest, ok := bytes.CutPrefix(line[start:], logWrite)
	write := ok
	if !ok {
		if rest, ok = bytes.CutPrefix(line[start:], logRead); !ok {
			s.logOther++
			return
		}
		switch dir {
		case fromClient:
			dir = fromServer
		case fromServer:
			dir = fromClient
		}
	}
	if dir != fromUnknown {
		s.marked = true
	}
	begin := len(line) - len(rest)
	for begin < len(line) && isJSONSpace(line[begin]) {
		begin++
	}
	if begin == len(line) {
		s.invalid(pos, "", "empty message after \""+strings.TrimSpace(string(line[start:begin]))+"\"")
		return
	}
	if !write && s.sdkGaveUp(pos, dir, line[begin:]) {
		return
	}
	s.payload(pos, "", dir, line[begin:], begin+1)
}
