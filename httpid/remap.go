package httpid

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/rpcid/rpcid/internal/mediatype"
	"github.com/rpcid/rpcid/internal/restore"
)

// remap records the requests of body, the request body that c sends, in a
// remapping table (restore.Table.Remap, which only rpcid proxy -remap sets)
// and makes c send the body with the ids the table assigned.
func (t *Transport) remap(c *requestCopy, body []byte) (*restore.Exchange, error) {
	r := &c.Request
	text, bom := mediatype.TrimBOM(body)
	var out []byte
	if bom {
		out = append(out, mediatype.BOM...)
	}
	out, ex, _, err := t.ids().AppendRecorded(out, text, requestSession(r))
	if err != nil || bytes.Equal(out, body) {
		return ex, err
	}
	c.body.Reset(out)
	r.ContentLength = int64(len(out))
	r.GetBody = func() (io.ReadCloser, error) { return newBytesBody(out), nil }
	return ex, nil
}

// refusal is the response to req, whose body a remapping table refused
// (restore.ErrTooManyPending): a JSON-RPC error response for each of its
// requests, with the client's own ids, so that the client is answered
// instead of waiting.
func refusal(req *http.Request, body []byte, err error) *http.Response {
	text, _ := mediatype.TrimBOM(body)
	out := restore.AppendRefusal(nil, text, "rpcid proxy: "+err.Error())
	status := http.StatusOK
	if len(out) == 0 {
		status = http.StatusServiceUnavailable
		out = []byte("rpcid proxy: " + err.Error() + "\n")
	}
	h := http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(out))}}
	if status != http.StatusOK {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	return &http.Response{
		Status:        strconv.Itoa(status) + " " + http.StatusText(status),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(out)),
		ContentLength: int64(len(out)),
		Request:       req,
	}
}

// endSession forgets, in a remapping table, the requests of the MCP session
// that req, a DELETE, ended, if resp says it did (MCP streamable HTTP: a
// client ends its session with a DELETE carrying its Mcp-Session-Id).
func endSession(table *restore.Table, req *http.Request, resp *http.Response) {
	if resp.StatusCode/100 == 2 {
		table.EndSession(requestSession(req))
	}
}
