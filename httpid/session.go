package httpid

import (
	"net/http"
	"strings"
)

// requestSession returns the session req was sent in, for matching (see
// restore.Table): its Mcp-Session-Id header (MCP streamable HTTP), or else
// the session its URL names (urlSession), or "" for none.
func requestSession(req *http.Request) string {
	if s := headerValue(req.Header, "Mcp-Session-Id"); s != "" {
		return s
	}
	if req.URL != nil && req.URL.RawQuery != "" {
		return urlSession(req.URL.RawQuery)
	}
	return ""
}

// urlSession returns the session that a URL query (as written) names for
// the 2024-11-05 HTTP+SSE transport, or "": the first parameter named
// sessionId or session_id (any case), which the endpoint event gives the
// client in the URL to POST to (the TypeScript and Go SDKs write
// sessionId or sessionid, the Python SDK session_id). The session is the
// parameter as written after "url ", "url sessionId=abc": it never equals
// an Mcp-Session-Id value, which has no space (MCP allows only visible
// ASCII there).
func urlSession(query string) string {
	for query != "" {
		var param string
		param, query, _ = strings.Cut(query, "&")
		name, _, _ := strings.Cut(param, "=")
		if strings.EqualFold(name, "sessionId") || strings.EqualFold(name, "session_id") {
			return "url " + param
		}
	}
	return ""
}
