package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The raw peers of TestBridgeMatrix: a client and a server without an SDK,
// so that every byte is the test's own. The server answers each request
// with the id bytes it received and logs every message it receives, one per
// line, exactly as received; the client records the id bytes of every
// message it receives.

// bridgeLogEnv names the file the raw stdio server appends what it receives
// to.
const bridgeLogEnv = "RPCID_BRIDGE_LOG"

// s2cIDs are the ids of the requests the raw server sends the client.
var s2cIDs = []string{"5", `"s5"`, "9007199254740993", "1.0"}

func init() { servers["bridge"] = bridgeStdioServer }

// A rawCall is what the raw server reads from a tools/call: the tag the
// client gave the request (arguments.n) and what to do (arguments.mode).
type rawCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string          `json:"name"`
		Arguments rawArgs         `json:"arguments"`
		RequestID json.RawMessage `json:"requestId"`
		Version   string          `json:"protocolVersion"`
	} `json:"params"`
	Result *struct {
		Meta struct {
			K int `json:"k"`
		} `json:"_meta"`
	} `json:"result"`
}

type rawArgs struct {
	N    int    `json:"n"`
	Mode string `json:"mode"`
}

// rawServer answers one message, msg, of the raw server: it returns the
// messages to send back at once, and calls later (in a goroutine) with
// those to send after a delay, and ask with the server's own requests.
func rawAnswer(msg []byte) (now []string, delay time.Duration, later []string, ask []string) {
	var m rawCall
	if json.Unmarshal(msg, &m) != nil || m.ID == nil || m.Method == "" {
		return nil, 0, nil, nil // a notification or a response: logged only
	}
	answer := func(result string) string {
		return `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`
	}
	switch m.Method {
	case "initialize":
		v := m.Params.Version
		if v == "" {
			v = "2025-06-18"
		}
		return []string{answer(`{"protocolVersion":` + strconv.Quote(v) + `,"capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1.0.0"}}`)}, 0, nil, nil
	case "tools/list":
		return []string{answer(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)}, 0, nil, nil
	case "ping":
		return []string{answer(`{}`)}, 0, nil, nil
	case "tools/call":
		res := answer(fmt.Sprintf(`{"content":[{"type":"text","text":"n=%d"}]}`, m.Params.Arguments.N))
		switch m.Params.Arguments.Mode {
		case "hold":
			return nil, 0, nil, nil
		case "slow":
			return nil, 300 * time.Millisecond, []string{res}, nil
		case "ask":
			for k, id := range s2cIDs {
				ask = append(ask, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"roots/list","params":{"_meta":{"k":%d}}}`, id, k))
			}
			return nil, 1500 * time.Millisecond, []string{res}, ask
		}
		return []string{res}, 0, nil, nil
	}
	return []string{`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"method not found"}}`}, 0, nil, nil
}

// bridgeStdioServer is the raw server on stdio: one message per line.
func bridgeStdioServer() int {
	log, err := os.OpenFile(os.Getenv(bridgeLogEnv), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bridge server:", err)
		return 1
	}
	var mu sync.Mutex
	write := func(msgs []string) {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			os.Stdout.WriteString(m + "\n")
		}
	}
	br := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimRight(line, "\r\n"); len(line) > 0 {
			mu.Lock()
			log.Write(append(append([]byte(nil), line...), '\n'))
			mu.Unlock()
			now, delay, later, ask := rawAnswer(line)
			write(ask)
			write(now)
			if later != nil {
				go func() { time.Sleep(delay); write(later) }()
			}
		}
		if err != nil {
			time.Sleep(2 * time.Second) // answers still due
			return 0
		}
	}
}

// rawHTTPServer is the raw server on MCP streamable HTTP, at any path: each
// POST is answered with JSON, or with an event stream when the server asks
// the client something first; notifications and responses get 202, GET 405.
type rawHTTPServer struct {
	mu  sync.Mutex
	log []string
}

func (s *rawHTTPServer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *rawHTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.log = append(s.log, string(bytes.ReplaceAll(body, []byte("\n"), []byte(" "))))
	s.mu.Unlock()
	now, delay, later, ask := rawAnswer(body)
	if now == nil && later == nil && ask == nil {
		if json.Valid(body) && bytes.Contains(body, []byte(`"hold"`)) {
			select { // a request never answered: held until the client goes
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if ask == nil {
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, strings.Join(append(now, later...), ""))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, m := range ask {
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
	}
	w.(http.Flusher).Flush()
	time.Sleep(delay)
	for _, m := range later {
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
	}
}

// An inMsg is a message the raw client received.
type inMsg struct {
	raw  []byte // the message, or the body of an HTTP error
	id   []byte // its id, exactly as received
	n    int    // the tag of the request it answers (result text "n=N"), or -1
	http int    // the HTTP status of a refused POST, or 0
}

// A rawClient sends messages over stdio or HTTP and records what it gets.
type rawClient struct {
	inbox chan inMsg
	post  func(n int, body []byte) // sends one message
	stop  func()                   // ends the session
	mu    sync.Mutex
	asked map[int]string // for each server request (params._meta.k), its id as received
}

func newRawClient() *rawClient {
	return &rawClient{inbox: make(chan inMsg, 256), asked: make(map[int]string)}
}

// receive takes data, one message or a batch, from the bridge: responses go
// to the inbox; a server request is answered with its own id bytes.
func (c *rawClient) receive(data []byte) {
	data = bytes.TrimSpace(data)
	var msgs []json.RawMessage
	if len(data) > 0 && data[0] == '[' {
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
	} else {
		msgs = []json.RawMessage{data}
	}
	for _, m := range msgs {
		var v struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta struct {
					K int `json:"k"`
				} `json:"_meta"`
			} `json:"params"`
			Result *struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal(m, &v) != nil {
			continue
		}
		switch {
		case v.Method != "" && v.ID != nil:
			c.mu.Lock()
			c.asked[v.Params.Meta.K] = string(v.ID)
			c.mu.Unlock()
			result := fmt.Sprintf(`{"roots":[],"_meta":{"k":%d}}`, v.Params.Meta.K)
			if v.Method == "ping" {
				result = `{}`
			}
			c.post(-2, []byte(`{"jsonrpc":"2.0","id":`+string(v.ID)+`,"result":`+result+`}`))
		case v.Method == "" && v.ID != nil:
			n := -1
			if v.Result != nil && len(v.Result.Content) == 1 {
				if k, err := strconv.Atoi(strings.TrimPrefix(v.Result.Content[0].Text, "n=")); err == nil {
					n = k
				}
			}
			c.inbox <- inMsg{raw: m, id: v.ID, n: n}
		}
	}
}

// await returns the first message answering tag n (or untagged) within d,
// and false if none came.
func (c *rawClient) await(n int, d time.Duration) (inMsg, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case m := <-c.inbox:
			if m.n == n || m.n == -1 {
				return m, true
			}
		case <-t.C:
			return inMsg{}, false
		}
	}
}

// startStdioRawClient runs argv with env as the bridge the client talks
// to over its stdin and stdout; its stderr goes to errOut.
func startStdioRawClient(t *testing.T, argv, env []string, errOut io.Writer) *rawClient {
	t.Helper()
	c := newRawClient()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stderr = errOut
	cmd.WaitDelay = time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wmu sync.Mutex
	c.post = func(_ int, body []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		in.Write(append(append([]byte(nil), body...), '\n'))
	}
	go func() {
		br := bufio.NewReaderSize(out, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				c.receive(line)
			}
			if err != nil {
				return
			}
		}
	}()
	c.stop = func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	return c
}

// startHTTPRawClient is a raw client of MCP streamable HTTP at url.
func startHTTPRawClient(url string) *rawClient {
	c := newRawClient()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var smu sync.Mutex
	session := ""
	hc := &http.Client{Timeout: wait}
	c.post = func(n int, body []byte) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			smu.Lock()
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			}
			smu.Unlock()
			resp, err := hc.Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
				smu.Lock()
				session = s
				smu.Unlock()
			}
			if resp.StatusCode/100 != 2 {
				b, _ := io.ReadAll(resp.Body)
				if n >= 0 {
					c.inbox <- inMsg{raw: b, n: n, http: resp.StatusCode}
				}
				return
			}
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				b, _ := io.ReadAll(resp.Body)
				if len(bytes.TrimSpace(b)) > 0 {
					c.receive(b)
				}
				return
			}
			br := bufio.NewReader(resp.Body)
			var data []byte
			for {
				line, err := br.ReadString('\n')
				line = strings.TrimRight(line, "\r\n")
				switch {
				case strings.HasPrefix(line, "data:"):
					if data != nil {
						data = append(data, '\n')
					}
					data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
				case line == "" && data != nil:
					c.receive(data)
					data = nil
				}
				if err != nil {
					return
				}
			}
		}()
	}
	c.stop = func() {
		cancel()
		wg.Wait()
	}
	return c
}
