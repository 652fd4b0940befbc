package conformance

// requestMessage is a JSON-RPC request whose "id" member is the raw id, as
// a peer would send it.
func requestMessage(id []byte) []byte {
	return concat(`{"jsonrpc":"2.0","id":`, id, `,"method":"ping","params":{}}`)
}

// responseMessage is a successful JSON-RPC response whose "id" member is
// the raw id and whose result is the JSON text result.
func responseMessage(id []byte, result string) []byte {
	return concat(`{"jsonrpc":"2.0","id":`, id, `,"result":`+result+`}`)
}

func concat(a string, b []byte, c string) []byte {
	out := make([]byte, 0, len(a)+len(b)+len(c))
	out = append(out, a...)
	out = append(out, b...)
	return append(out, c...)
}
