// The web app's HTTP server: Next's request handler, with X-Forwarded-For set to the client this
// server saw. Next only fills that header when a request arrives without one, so under `next start`
// a visitor could name any address, and the API's per-IP rate limits, audit entries and sealed
// PDFs would record it. WEB_HOST and WEB_PORT say where to listen; TRUST_PROXY as for the API.
import { createServer } from "node:http";
import { dirname } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import next from "next";
import { clientAddress } from "./src/lib/client-address.mjs";

const hostname = process.env.WEB_HOST || "127.0.0.1";
const port = Number(process.env.WEB_PORT || 3000);
const trustProxy = /^(true|1)$/i.test(process.env.TRUST_PROXY ?? "");

const app = next({ dev: false, dir: dirname(fileURLToPath(import.meta.url)), hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = createServer((req, res) => {
  const client = clientAddress(req.headers["x-forwarded-for"], req.socket.remoteAddress, trustProxy);
  if (client) req.headers["x-forwarded-for"] = client;
  else delete req.headers["x-forwarded-for"];
  void handle(req, res);
});
server.listen(port, hostname, () => process.stdout.write(`web app listening on http://${hostname}:${port}\n`));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
