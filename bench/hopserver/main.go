// Command hopserver is the upstream and the plain reverse proxy that
// bench/hop.sh measures rpcid proxy beside: a JSON-RPC server answering a
// POST with a 1 KB response whose id is turned into a string (as a gateway
// that changes ids would), and a stream of 1 KB events on GET; or a plain
// httputil.ReverseProxy in front of it (the hop alone, ids left as they
// are). It listens on 127.0.0.1 only.
//
//	hopserver -upstream -listen 127.0.0.1:PORT
//	hopserver -reverseproxy http://127.0.0.1:PORT -listen 127.0.0.1:PORT2
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
)

// events is the number of 1 KB events in the stream a GET receives.
const events = 100

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on (127.0.0.1 only)")
	upstream := flag.Bool("upstream", false, "serve as the upstream")
	rp := flag.String("reverseproxy", "", "serve as a plain httputil.ReverseProxy in front of this URL")
	flag.Parse()
	host, _, err := net.SplitHostPort(*listen)
	if err != nil || host != "127.0.0.1" {
		log.Fatalf("-listen %q: 127.0.0.1:PORT only", *listen)
	}
	var h http.Handler
	switch {
	case *upstream:
		h = upstreamHandler()
	case *rp != "":
		u, err := url.Parse(*rp)
		if err != nil {
			log.Fatal(err)
		}
		p := httputil.NewSingleHostReverseProxy(u)
		p.FlushInterval = -1 // events pass one by one, as through rpcid proxy
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 256, 256 // as rpcid proxy keeps
		p.Transport = tr
		p.ErrorLog = log.New(io.Discard, "", 0) // wrk ends with requests in flight
		h = p
	default:
		log.Fatal("-upstream or -reverseproxy URL")
	}
	log.Fatal(http.ListenAndServe(*listen, h))
}

func upstreamHandler() http.Handler {
	// A tools/call result of 1 KB, its id changed to the string "7".
	pad := func(prefix, suffix string) string {
		return prefix + strings.Repeat("x", 1024-len(prefix)-len(suffix)) + suffix
	}
	answer := pad(`{"jsonrpc":"2.0","id":"7","result":{"content":[{"type":"text","text":"`, `"}]}}`)
	var stream strings.Builder
	for i := range events {
		ev := pad(fmt.Sprintf(`data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%d,"message":"`, i), "\"}}\n\n")
		stream.WriteString(ev)
	}
	streamText := stream.String()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", fmt.Sprint(len(answer)))
			io.WriteString(w, answer)
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			f := w.(http.Flusher)
			for i := 0; i < len(streamText); i += 1024 {
				io.WriteString(w, streamText[i:i+1024])
				f.Flush()
			}
		}
	})
}
