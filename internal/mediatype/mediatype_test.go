package mediatype

import "testing"

func TestKinds(t *testing.T) {
	tests := []struct {
		mt               string
		json, lines, seq bool
	}{
		{"application/json", true, false, false},
		{"APPLICATION/JSON", true, false, false},
		{"application/json-rpc", true, false, false},
		{"Application/JSON-RPC", true, false, false},
		{"application/jsonrequest", true, false, false},
		{"application/JsonRequest", true, false, false},
		{"application/vnd.api+json", true, false, false},
		{"application/problem+JSON", true, false, false},
		{"+json", true, false, false},
		{"application/x-ndjson", false, true, false},
		{"application/ndjson", false, true, false},
		{"application/jsonl", false, true, false},
		{"application/jsonlines", false, true, false},
		{"application/x-jsonlines", false, true, false},
		{"application/stream+json", true, true, false}, // a +json type too: httpid and check test for line types first
		{"application/json-seq", false, true, true},
		{"application/geo+json-seq", false, true, true},
		{"application/json-rpc-seq", false, false, false},
		{"application/json-rpcx", false, false, false},
		{"application/jsonrequests", false, false, false},
		{"application/json+rpc", false, false, false},
		{"text/json-rpc", false, false, false},
		{"application/x-json-rpc", false, false, false},
		{"text/plain", false, false, false},
		{"application/javascript", false, false, false},
		{"text/event-stream", false, false, false},
		{"application/jsonx", false, false, false},
		{"json", false, false, false},
		{"", false, false, false},
	}
	for _, tt := range tests {
		if got := IsJSON(tt.mt); got != tt.json {
			t.Errorf("IsJSON(%q) = %v, want %v", tt.mt, got, tt.json)
		}
		if got := IsLines(tt.mt); got != tt.lines {
			t.Errorf("IsLines(%q) = %v, want %v", tt.mt, got, tt.lines)
		}
		if got := IsSeq(tt.mt); got != tt.seq {
			t.Errorf("IsSeq(%q) = %v, want %v", tt.mt, got, tt.seq)
		}
	}
	if !IsEventStream("Text/Event-Stream") || IsEventStream("text/event-streams") {
		t.Error("IsEventStream")
	}
}

func TestTrimBOM(t *testing.T) {
	tests := []struct {
		in, want string
		bom      bool
	}{
		{"\xef\xbb\xbf{}", "{}", true},
		{"\xef\xbb\xbf\xef\xbb\xbf{}", "\xef\xbb\xbf{}", true},
		{"\xef\xbb\xbf", "", true},
		{"\xef\xbb", "\xef\xbb", false},
		{" \xef\xbb\xbf{}", " \xef\xbb\xbf{}", false},
		{"\xef\xbb\xbe{}", "\xef\xbb\xbe{}", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, bom := TrimBOM([]byte(tt.in))
		if string(got) != tt.want || bom != tt.bom {
			t.Errorf("TrimBOM(%q) = %q, %v; want %q, %v", tt.in, got, bom, tt.want, tt.bom)
		}
	}
}
