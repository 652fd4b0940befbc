// Preloaded (node --require) into every bridge that interop's
// TestBridgeMatrix runs, so that a bridge listens on 127.0.0.1 whatever
// address it asks for (supergateway has no flag for it and listens on every
// address) and connects to nothing but this machine (no OAuth discovery,
// tunnel or update check reaches the network).
"use strict";
const net = require("node:net");

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const a = args[0];
  if (a !== null && typeof a === "object" && !Array.isArray(a) && ("port" in a || !("path" in a || "fd" in a || "_handle" in a))) {
    args[0] = { ...a, host: "127.0.0.1" };
  } else if (typeof a === "number" || (typeof a === "string" && /^[0-9]+$/.test(a))) {
    const rest = args.slice(1);
    if (typeof rest[0] === "string") rest.shift();
    args = [Number(a), "127.0.0.1", ...rest];
  }
  return listen.apply(this, args);
};

const loopback = (host) =>
  host === undefined || host === "" || host === "localhost" || host === "127.0.0.1" || host === "::1" || host === "[::1]";

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  let o = Array.isArray(args[0]) ? args[0][0] : args[0];
  let host;
  if (o !== null && typeof o === "object") {
    if (o.path) return connect.apply(this, args);
    host = o.host;
  } else if (typeof args[1] === "string") {
    host = args[1];
  }
  if (!loopback(host)) {
    throw new Error(`loopback.cjs: refused a connection to ${host}: the bridge tests stay on this machine`);
  }
  return connect.apply(this, args);
};
