import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { activeTemplate, newSession } from "../testing/forms";

let api: TestApi;
let org: TestOrg;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Klinik Nord");
});
afterAll(() => api?.close());

const FIVE_MB = 5 * 1024 * 1024;

/**
 * A plain client: writes the whole body (with Content-Length, or chunked without it) whatever the
 * server answers meanwhile, and reads the answer. Resolves with the status and body it could read,
 * or the socket error that took the answer away.
 */
function sendWhole(path: string, body: Buffer, headers: Record<string, string>, chunked: boolean) {
  return new Promise<{ status?: number; body?: string; error?: string }>((resolve) => {
    const req = httpRequest(`${api.baseUrl}${path}`, {
      method: "POST",
      headers: { ...headers, ...(!chunked && { "content-length": String(body.length) }) },
    });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode, body: text }));
      res.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.setTimeout(20_000, () => {
      resolve({ error: "no answer in 20 s" });
      req.destroy();
    });
    for (let offset = 0; offset < body.length; offset += 64 * 1024)
      req.write(body.subarray(offset, offset + 64 * 1024));
    req.end();
  });
}

describe("a refused request body: the answer arrives before the connection closes", () => {
  it("answers a 5 MB JSON body to an area-B path with a readable 413, declared or chunked, every time", async () => {
    const body = Buffer.alloc(FIVE_MB, 0x20);
    for (const chunked of [false, true]) {
      for (let i = 0; i < 8; i++) {
        const res = await sendWhole("/api/embed/templates", body, { "content-type": "application/json" }, chunked);
        expect(res, `${chunked ? "chunked" : "declared"} body, try ${i + 1}`).toMatchObject({ status: 413 });
        expect(JSON.parse(res.body!)).toMatchObject({ ok: false, error: expect.stringContaining("exceeds") });
      }
    }
  });

  it("answers an upload over its field's limit with a readable 413 while the client keeps sending, every time", async () => {
    const t = await activeTemplate(org, [
      { id: "1", type: "file", key: "scan", label: "Befund", accept: "application/pdf", maxSizeMb: 1 },
    ]);
    const sessionId = await newSession(api, org, t.identifier);
    const boundary = "----refused";
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.pdf"\r\n` +
          "content-type: application/pdf\r\n\r\n%PDF-1.4\n",
      ),
      Buffer.alloc(FIVE_MB, 0x20),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const headers = { "content-type": `multipart/form-data; boundary=${boundary}`, "x-session-id": sessionId };
    for (let i = 0; i < 8; i++) {
      const res = await sendWhole("/api/embed/uploads", body, headers, i % 2 === 1);
      expect(res, `try ${i + 1}`).toMatchObject({ status: 413 });
      expect(JSON.parse(res.body!).error).toContain("larger than 1 MB");
    }
  });
});
