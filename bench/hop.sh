#!/usr/bin/env bash
# hop.sh measures the hop rpcid proxy adds, beside a direct connection, a
# plain httputil.ReverseProxy and nginx, in one run on this machine:
#
#   direct        wrk -> upstream
#   reverseproxy  wrk -> httputil.ReverseProxy -> upstream
#   nginx         wrk -> nginx (proxy_pass, keepalive upstream) -> upstream
#   rpcid         wrk -> rpcid proxy -> upstream (ids restored)
#
# for a 1 KB JSON-RPC POST answered with a 1 KB response whose id the
# upstream turns into a string, and a GET answered with a stream of 100
# events of 1 KB, at 1 and 64 connections. It prints requests per second,
# the ratio to direct, and p50/p99 latency: medians of ROUNDS rounds (3),
# each measuring every target in turn, so that a burst of load elsewhere on
# the machine does not fall on one target only. Everything listens on 127.0.0.1
# and is stopped at the end. Needs wrk and nginx (Debian: apt-get install
# nginx wrk) and Go. Run from the repository root or bench/:
#
#   bash bench/hop.sh            # 3 rounds of 5 seconds per measurement
#   ROUNDS=5 DURATION=10s bash bench/hop.sh
set -euo pipefail
cd "$(dirname "$0")"
DURATION=${DURATION:-5s}
ROUNDS=${ROUNDS:-3}
for tool in wrk nginx go; do
  command -v "$tool" >/dev/null || { echo "hop.sh: $tool not found (apt-get install -y nginx wrk)" >&2; exit 1; }
done
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/hopserver" ./hopserver
(cd .. && go build -o "$tmp/rpcid" ./cmd/rpcid)

# free_port prints a port no one listens on now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
UP=$(free_port); RP=$(free_port); NG=$(free_port); RI=$(free_port)

"$tmp/hopserver" -upstream -listen "127.0.0.1:$UP" & pids+=($!)
"$tmp/hopserver" -reverseproxy "http://127.0.0.1:$UP" -listen "127.0.0.1:$RP" & pids+=($!)
"$tmp/rpcid" proxy -listen "127.0.0.1:$RI" "http://127.0.0.1:$UP/mcp" 2>"$tmp/rpcid.log" & pids+=($!)

mkdir -p "$tmp/nginx"
cat >"$tmp/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $tmp/nginx/body;
  proxy_temp_path $tmp/nginx/proxy;
  fastcgi_temp_path $tmp/nginx/fastcgi;
  uwsgi_temp_path $tmp/nginx/uwsgi;
  scgi_temp_path $tmp/nginx/scgi;
  upstream up { server 127.0.0.1:$UP; keepalive 256; }
  server {
    listen 127.0.0.1:$NG;
    location / {
      proxy_pass http://up;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
    }
  }
}
CONF
nginx -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" -g 'daemon off;' & pids+=($!)

cat >"$tmp/post.lua" <<'LUA'
local pad = string.rep("x", 1024 - 93)
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"' .. pad .. '"}}}'
LUA

# Wait until each listens.
for port in $UP $RP $NG $RI; do
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break
    sleep 0.1
  done
done
# The restored id, through rpcid proxy; the id as the upstream wrote it elsewhere.
body=$(curl -s -H 'Content-Type: application/json' --data-binary '{"jsonrpc":"2.0","id":7,"method":"ping"}' "http://127.0.0.1:$RI/mcp")
case $body in *'"id":7,'*) ;; *) echo "hop.sh: rpcid proxy did not restore the id: ${body:0:80}" >&2; exit 1;; esac

# us converts a wrk latency (950.00us, 1.20ms, 2.00s) to microseconds.
us() { awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) print n; else if (v ~ /ms$/) print n * 1000; else print n * 1000000 }'; }

# measure NAME PORT CONNS KIND appends "req/s p50 p99" (microseconds) to
# $tmp/NAME.CONNS.KIND.
measure() {
  local name=$1 port=$2 conns=$3 kind=$4 threads=1 script=() path=/mcp
  [ "$conns" -gt 1 ] && threads=2
  [ "$kind" = post ] && script=(-s "$tmp/post.lua")
  [ "$kind" = stream ] && path=/events
  out=$(wrk -t"$threads" -c"$conns" -d"$DURATION" --latency "${script[@]}" "http://127.0.0.1:$port$path")
  if grep -q 'Non-2xx\|Socket errors' <<<"$out"; then
    echo "hop.sh: $name, $conns connections, $kind: $(grep 'Non-2xx\|Socket errors' <<<"$out")" >&2
  fi
  echo "$(awk '/^Requests\/sec:/ {print $2}' <<<"$out") $(us "$(awk '$1 == "50%" {print $2}' <<<"$out")") $(us "$(awk '$1 == "99%" {print $2}' <<<"$out")")" >>"$tmp/$name.$conns.$kind"
}

# median FILE COLUMN prints the median of a column.
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }

targets=(direct:$UP reverseproxy:$RP nginx:$NG rpcid:$RI)
for round in $(seq "$ROUNDS"); do
  for kind in post stream; do
    for conns in 1 64; do
      for t in "${targets[@]}"; do
        measure "${t%%:*}" "${t##*:}" "$conns" "$kind"
      done
    done
  done
done

echo "medians of $ROUNDS rounds of $DURATION each, interleaved; ratio = req/s / direct's, p50 and p99 in microseconds"
printf '%-6s %5s  %-12s %10s %6s %8s %9s\n' kind conns target req/s ratio p50 p99
for kind in post stream; do
  for conns in 1 64; do
    base=$(median "$tmp/direct.$conns.$kind" 1)
    for t in "${targets[@]}"; do
      f="$tmp/${t%%:*}.$conns.$kind"
      rps=$(median "$f" 1)
      printf '%-6s %5s  %-12s %10.0f %6.2f %8.0f %9.0f\n' "$kind" "$conns" "${t%%:*}" "$rps" "$(awk -v a="$rps" -v b="$base" 'BEGIN {print a / b}')" "$(median "$f" 2)" "$(median "$f" 3)"
    done
  done
done
