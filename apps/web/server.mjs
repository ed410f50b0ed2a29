// The web app's HTTP server: Next's request handler, with X-Forwarded-For set to the client this
// server saw. Next only fills that header when a request arrives without one, so under `next start`
// a visitor could name any address, and the API's per-IP rate limits, audit entries and sealed
// PDFs would record it. Every response also gets the security headers (src/lib/security-headers.mjs). WEB_HOST and WEB_PORT say where to listen; TRUST_PROXY as for the API.
import { createReadStream } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import next from "next";
import { clientAddress } from "./src/lib/client-address.mjs";
import { precompressedFile } from "./src/lib/precompressed.mjs";
import { withSecurityHeaders } from "./src/lib/security-headers.mjs";

const hostname = process.env.WEB_HOST || "127.0.0.1";
const port = Number(process.env.WEB_PORT || 3000);
const trustProxy = /^(true|1)$/i.test(process.env.TRUST_PROXY ?? "");

const dir = dirname(fileURLToPath(import.meta.url));
const staticDir = join(dir, ".next", "static");
const app = next({ dev: false, dir, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

/** A build asset as brotli (written at build time), like Next would send it otherwise. */
async function servePrecompressed(req, res) {
  const found = await precompressedFile(staticDir, req.method, req.url, req.headers["accept-encoding"]);
  if (!found) return false;
  res.writeHead(200, {
    "content-type": found.type,
    "content-encoding": "br",
    "content-length": found.size,
    "cache-control": "public, max-age=31536000, immutable",
    vary: "Accept-Encoding",
    "x-content-type-options": "nosniff",
  });
  if (req.method === "HEAD") res.end();
  else createReadStream(found.file).pipe(res);
  return true;
}

const server = createServer((req, res) => {
  // CSP, X-Frame-Options and nosniff on every response, also those the proxy never saw.
  withSecurityHeaders(req, res);
  const client = clientAddress(req.headers["x-forwarded-for"], req.socket.remoteAddress, trustProxy);
  if (client) req.headers["x-forwarded-for"] = client;
  else delete req.headers["x-forwarded-for"];
  servePrecompressed(req, res)
    .then((served) => served || handle(req, res))
    .catch(() => handle(req, res));
});
server.listen(port, hostname, () => process.stdout.write(`web app listening on http://${hostname}:${port}\n`));
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
