import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forwardToApi } from "./api-proxy";

// A stand-in for the API: records what arrives and answers like a file download.
let seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string } | null = null;
let server: Server;
let port: string | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      seen = { method: req.method, url: req.url, headers: req.headers, body };
      const payload = "a,b\n1,2\n";
      res.writeHead(200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": 'attachment; filename="audit-log.csv"',
        "content-length": String(payload.length),
        "x-content-type-options": "nosniff",
        "x-internal": "not for the browser",
      });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = process.env.API_PORT;
  process.env.API_HOST = "127.0.0.1";
  process.env.API_PORT = String((server.address() as AddressInfo).port);
});

afterAll(async () => {
  process.env.API_PORT = port;
  await new Promise((resolve) => server.close(resolve));
});

describe("forwardToApi, the web app's one proxy", () => {
  it("forwards the one list of request headers (CSRF signals and the declared length included), nothing else", async () => {
    const body = "--x\r\n--x--\r\n";
    await forwardToApi(
      new NextRequest("http://localhost:3000/staff/documents", {
        method: "POST",
        headers: {
          cookie: "clinsign_session=s",
          "content-type": "multipart/form-data; boundary=x",
          "content-length": String(body.length),
          origin: "http://localhost:3000",
          "sec-fetch-site": "same-origin",
          "x-forwarded-for": "203.0.113.7",
          authorization: "Bearer must-not-pass",
        },
        body,
      }),
      { file: true },
    );
    expect(seen).toMatchObject({
      method: "POST",
      url: "/staff/documents",
      body,
      headers: {
        cookie: "clinsign_session=s",
        "content-length": String(body.length),
        origin: "http://localhost:3000",
        "sec-fetch-site": "same-origin",
        "x-forwarded-for": "203.0.113.7",
      },
    });
    expect(seen?.headers.authorization).toBeUndefined();
  });

  it("keeps a file's name and length, and only a file's", async () => {
    const file = await forwardToApi(new NextRequest("http://localhost:3000/staff/audit-log/export?action=x"), {
      file: true,
    });
    expect(seen?.url).toBe("/staff/audit-log/export?action=x");
    expect(file.headers.get("content-disposition")).toBe('attachment; filename="audit-log.csv"');
    expect(file.headers.get("content-length")).toBe("8");
    expect(file.headers.get("cache-control")).toBe("no-store");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("x-internal")).toBeNull();
    expect(await file.text()).toBe("a,b\n1,2\n");

    const call = await forwardToApi(new NextRequest("http://localhost:3000/trpc/x"));
    expect(call.headers.get("content-disposition")).toBeNull();
    expect(call.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  });

  it("takes the route's prefix off the path", async () => {
    await forwardToApi(new NextRequest("http://localhost:3000/f/trpc/portal.get?batch=1", { method: "POST" }), {
      pathPrefix: "/f",
    });
    expect(seen?.url).toBe("/trpc/portal.get?batch=1");
  });
});
