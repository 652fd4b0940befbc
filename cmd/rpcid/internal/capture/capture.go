// Package capture writes synthetic captures of ordinary MCP traffic in JSON
// Lines, for the benchmarks of "rpcid check" and for measuring it beside
// other tools (see gencapture). The traffic is what an MCP client and server
// exchange over stdio once initialized: tools/call requests with small
// arguments answered by results of about 500 bytes of text, some
// tools/list, resources/read and ping requests, progress and log
// notifications, every request answered with the same id.
package capture

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Write writes about size bytes of capture to w: whole lines, each one
// message, ending with a complete request/response exchange. The same seed
// gives the same bytes. It returns the number of bytes and messages written.
func Write(w io.Writer, size int64, seed uint64) (written int64, messages int, err error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var line []byte
	emit := func() {
		line = append(line, '\n')
		n, _ := bw.Write(line)
		written += int64(n)
		messages++
		line = line[:0]
	}
	line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"bench-client","version":"1.0.0"}}}`)
	emit()
	line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{}},"serverInfo":{"name":"bench-server","version":"1.0.0"}}}`)
	emit()
	line = append(line, `{"jsonrpc":"2.0","method":"notifications/initialized"}`...)
	emit()
	for id := 1; written < size; id++ {
		switch k := r.IntN(20); {
		case k < 14:
			city := cities[r.IntN(len(cities))]
			line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":%q,"days":%d,"units":"metric"},"_meta":{"progressToken":%d}}}`, id, city, 1+r.IntN(7), id)
			emit()
			if r.IntN(3) == 0 {
				line = fmt.Appendf(line, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%d,"progress":%d,"total":100}}`, id, r.IntN(100))
				emit()
			}
			line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}],"isError":false}}`, id, forecast(r, city))
			emit()
		case k < 16:
			line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"file:///data/station-%d.csv"}}`, id, r.IntN(1000))
			emit()
			line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":%d,"result":{"contents":[{"uri":"file:///data/station-%d.csv","mimeType":"text/csv","text":%q}]}}`, id, r.IntN(1000), csv(r))
			emit()
		case k < 17:
			line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id)
			emit()
			line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":%d,"result":{"tools":[{"name":"get_forecast","description":"Weather forecast for a city","inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city"]}},{"name":"get_alerts","description":"Active weather alerts for a region","inputSchema":{"type":"object","properties":{"region":{"type":"string"}},"required":["region"]}}]}}`, id)
			emit()
		case k < 18:
			line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id)
			emit()
			line = fmt.Appendf(line, `{"jsonrpc":"2.0","id":%d,"result":{}}`, id)
			emit()
		default:
			line = fmt.Appendf(line, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"forecast","data":"cache refreshed for %d stations in %d ms"}}`, r.IntN(5000), r.IntN(900))
			emit()
		}
	}
	return written, messages, bw.Flush()
}

var cities = []string{"Paris", "Oslo", "Reykjavík", "São Paulo", "Kraków", "Zürich", "Tokyo", "Nairobi", "Montréal", "Wellington"}

// forecast returns about 450 bytes of forecast text.
func forecast(r *rand.Rand, city string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Forecast for %s:\n", city)
	for b.Len() < 420 {
		fmt.Fprintf(&b, "Day %d: %s, high %d°C, low %d°C, wind %d km/h %s, humidity %d%%.\n", 1+r.IntN(7),
			sky[r.IntN(len(sky))], 5+r.IntN(25), -5+r.IntN(15), r.IntN(60), winds[r.IntN(len(winds))], 30+r.IntN(70))
	}
	return b.String()
}

var sky = []string{"clear", "light rain", "overcast", "thunderstorms", "snow showers", "fog"}
var winds = []string{"N", "NE", "E", "SE", "S", "SW", "W", "NW"}

// csv returns about 300 bytes of station readings.
func csv(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString("time,temp,pressure\n")
	for b.Len() < 300 {
		fmt.Fprintf(&b, "2026-11-%02dT%02d:00Z,%d.%d,%d\n", 1+r.IntN(28), r.IntN(24), r.IntN(30), r.IntN(10), 980+r.IntN(60))
	}
	return b.String()
}
