import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET, POST } from "./route";

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

// A stand-in for the API: records what arrives and answers with two cookies.
let seen: Seen | null = null;
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      seen = { method: req.method, url: req.url, headers: req.headers, body };
      res.statusCode = req.url?.includes("auth.me") ? 401 : 200;
      res.setHeader("content-type", "application/json");
      res.setHeader("set-cookie", ["clinsign_session=abc; Path=/; HttpOnly; SameSite=Lax", "other=1; Path=/"]);
      res.setHeader("x-internal", "not for the browser");
      res.end(JSON.stringify({ result: { data: { ok: true } } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // Read per request by the handler, so setting it after import still counts.
  process.env.API_HOST = "127.0.0.1";
  process.env.API_PORT = String((server.address() as AddressInfo).port);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("the /trpc proxy", () => {
  it("forwards method, path, query, body and the allowed headers, and returns every cookie", async () => {
    const request = new NextRequest("http://localhost:3000/trpc/auth.login?batch=1", {
      method: "POST",
      headers: {
        cookie: "lang=de",
        "content-type": "application/json",
        "user-agent": "test-agent",
        "accept-language": "de-DE",
        "x-forwarded-for": "203.0.113.7",
        authorization: "Bearer must-not-pass",
      },
      body: JSON.stringify({ 0: { email: "a@b.c", password: "x" } }),
    });
    const response = await POST(request);

    expect(seen?.method).toBe("POST");
    expect(seen?.url).toBe("/trpc/auth.login?batch=1");
    expect(seen?.body).toBe(JSON.stringify({ 0: { email: "a@b.c", password: "x" } }));
    expect(seen?.headers).toMatchObject({
      cookie: "lang=de",
      "content-type": "application/json",
      "user-agent": "test-agent",
      "accept-language": "de-DE",
      "x-forwarded-for": "203.0.113.7",
    });
    expect(seen?.headers.authorization).toBeUndefined();

    expect(response.status).toBe(200);
    expect(response.headers.getSetCookie()).toEqual([
      "clinsign_session=abc; Path=/; HttpOnly; SameSite=Lax",
      "other=1; Path=/",
    ]);
    expect(response.headers.get("x-internal")).toBeNull();
    expect(await response.json()).toEqual({ result: { data: { ok: true } } });
  });

  it("passes the API's status through", async () => {
    const response = await GET(new NextRequest("http://localhost:3000/trpc/auth.me?batch=1&input=%7B%7D"));
    expect(seen?.method).toBe("GET");
    expect(seen?.url).toBe("/trpc/auth.me?batch=1&input=%7B%7D");
    expect(response.status).toBe(401);
  });

  it("answers 502 when the API is down", async () => {
    const port = process.env.API_PORT;
    process.env.API_PORT = "1";
    try {
      const response = await GET(new NextRequest("http://localhost:3000/trpc/auth.me"));
      expect(response.status).toBe(502);
    } finally {
      process.env.API_PORT = port;
    }
  });
});
