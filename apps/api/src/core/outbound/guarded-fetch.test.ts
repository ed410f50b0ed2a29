import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkOutboundUrl, guardedFetch, isBlockedAddress, OutboundError } from "./guarded-fetch";

let server: Server;
let origin: string;
let hostPort: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/big") return res.end(Buffer.alloc(2048, 1));
    if (req.url === "/slow") return setTimeout(() => res.end("late"), 2000);
    if (req.url === "/redirect") {
      res.writeHead(302, { location: "http://127.0.0.2:1/secret" });
      return res.end();
    }
    res.end("hello");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  origin = `http://${hostPort}`;
});
afterAll(() => server.closeAllConnections());

const open = { allowHosts: [] as string[] };
const fetchOpts = { timeoutMs: 500, maxBytes: 1024 };

describe("outbound guard", () => {
  it("classifies private, loopback and link-local addresses as blocked", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "::1",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "0.0.0.0",
    ])
      expect(isBlockedAddress(address), address).toBe(true);
    for (const address of ["93.184.216.34", "2606:4700::1111", "8.8.8.8"])
      expect(isBlockedAddress(address), address).toBe(false);
  });

  it("refuses NAT64, 6to4, site-local and hexadecimal IPv4-mapped addresses", () => {
    for (const address of [
      "64:ff9b:1::a00:1",
      "2002:7f00:1::1",
      "fec0::1",
      "::ffff:7f00:1",
      "::ffff:a9fe:a9fe",
      "::7f00:1",
    ])
      expect(isBlockedAddress(address), address).toBe(true);
    expect(isBlockedAddress("::ffff:5db8:d822"), "::ffff:93.184.216.34").toBe(false);
    // URL parsing turns the dotted mapped form into the hexadecimal one.
    expect(() => checkOutboundUrl("https://[::ffff:7f00:1]/", open)).toThrow(OutboundError);
    expect(() => checkOutboundUrl("https://[::ffff:127.0.0.1]/", open)).toThrow(OutboundError);
  });

  it("refuses plain http and loopback targets that are not allow-listed", async () => {
    expect(() => checkOutboundUrl("http://example.org/x", open)).toThrow("only https");
    expect(() => checkOutboundUrl("https://169.254.169.254/latest", open)).toThrow(OutboundError);
    expect(() => checkOutboundUrl("https://user:pw@example.org/", open)).toThrow("credentials");
    await expect(guardedFetch(`https://localhost:1/x`, open, fetchOpts)).rejects.toMatchObject({
      reason: "blocked_address",
    });
  });

  it("allowPlainHttp (signed answers: time stamps, OCSP, CRLs) admits http, but never a private address", async () => {
    const signedAnswers = { ...open, allowPlainHttp: true };
    expect(checkOutboundUrl("http://timestamp.example.org/tsa", signedAnswers).url.protocol).toBe("http:");
    expect(() => checkOutboundUrl("http://10.0.0.5/ocsp", signedAnswers)).toThrow(OutboundError);
    await expect(guardedFetch(`http://localhost:1/crl`, signedAnswers, fetchOpts)).rejects.toMatchObject({
      reason: "blocked_address",
    });
  });

  it("reaches an allow-listed loopback host over http", async () => {
    const res = await guardedFetch(`${origin}/`, { allowHosts: [hostPort] }, fetchOpts);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe("hello");
    expect(res.remoteAddress).toBe("127.0.0.1");
  });

  it("does not follow a redirect into a non-allow-listed address", async () => {
    const noFollow = await guardedFetch(`${origin}/redirect`, { allowHosts: [hostPort] }, fetchOpts);
    expect(noFollow.status).toBe(302);
    await expect(
      guardedFetch(`${origin}/redirect`, { allowHosts: [hostPort] }, { ...fetchOpts, maxRedirects: 2 }),
    ).rejects.toMatchObject({
      reason: "invalid_url",
    });
  });

  it("caps the size and the time of a response", async () => {
    await expect(guardedFetch(`${origin}/big`, { allowHosts: [hostPort] }, fetchOpts)).rejects.toMatchObject({
      reason: "too_large",
    });
    await expect(guardedFetch(`${origin}/slow`, { allowHosts: [hostPort] }, fetchOpts)).rejects.toMatchObject({
      reason: "timeout",
    });
  });
});
