import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, rateLimits } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { bearer, makePdf, startFileServer, type FileServer } from "../../testing/signature-fixtures";
import { addressKey } from "../rate-limit";

let api: TestApi;
let files: FileServer;
let org: TestOrg;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort });
  org = await api.createOrg("Klinik Prüfstand");
  // Warm: the first worker of the process and the first answers pay for loading code.
  await verify(await makePdf(), "198.51.100.250");
  await api.request("GET", "/healthz");
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

async function verify(body: Uint8Array, ip: string) {
  const response = await fetch(`${api.baseUrl}/verify`, {
    method: "POST",
    body,
    headers: { "content-type": "application/pdf", "x-forwarded-for": ip },
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
  return { status: response.status, body: (await response.json()) as any };
}

/**
 * A cheap file whose `entries` `/ByteRange`s each cover the whole of its `size` bytes around one
 * small /Contents: without a cap, checking it hashes `size` bytes `entries` times.
 */
function manyByteRanges(entries: number, size: number): Buffer {
  const pad = (n: number) => String(n).padStart(10, "0");
  const head = "%PDF-1.7\n<3000>\n"; // the gap: bytes 9 ('<') to 14 ('>')
  const entry = `/ByteRange [${pad(0)} ${pad(9)} ${pad(15)} ${pad(size - 15)}]\n`;
  const body = head + entry.repeat(entries);
  return Buffer.concat([Buffer.from(body, "latin1"), Buffer.alloc(size - body.length, 0x20)]);
}

describe("/verify under hostile files (its own lane, capped signatures and bytes)", () => {
  it("refuses 2,000 signatures each covering 2 MB with 400, while /healthz answers and staff work goes on", async () => {
    // Unchecked, each of these costs 2,000 × 2 MB of copying and hashing: past the 30 s deadline.
    const hostile = manyByteRanges(2_000, 2 * 1024 * 1024);
    files.set("/fine.pdf", await makePdf());
    let settled = false;
    const attacks = Promise.all([verify(hostile, "198.51.100.1"), verify(hostile, "198.51.100.2")]).finally(
      () => (settled = true),
    );
    const slowest: number[] = [];
    for (let i = 0; i < 5 && !settled; i++) {
      const started = performance.now();
      expect((await api.request("GET", "/healthz")).status).toBe(200);
      slowest.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(Math.max(...slowest), `/healthz took ${slowest.map(Math.round).join(", ")} ms`).toBeLessThan(500);
    // A staff task (A6 reads the document's pages in the documents lane) is not starved by them.
    const a6 = await api.request("POST", "/documents", {
      headers: bearer(org),
      body: {
        document_name: "Aufklärung",
        signingfield_koordinates: { page: 1, x: 10, y: 10, width: 100, height: 40 },
        document_bloburl: `${files.origin}/fine.pdf`,
      },
    });
    expect(a6.status).toBe(201);
    const answers = await attacks;
    expect(settled).toBe(true);
    for (const answer of answers) {
      // The second may also find the first still running and wait its turn; both end refused.
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: "invalid_request",
        details: { field: "file", reason: "signature_limits" },
      });
      expect(answer.body.error.message).toContain("more than 8 signatures");
    }
  }, 60_000);

  it("reads a file with a few signatures' ranges (under the caps) to the end", async () => {
    const answer = await verify(manyByteRanges(3, 1024 * 1024), "198.51.100.3");
    expect(answer.status).toBe(200);
    // Well-formed ranges around a /Contents that is no CMS: a seal that cannot be confirmed.
    expect(answer.body).toMatchObject({
      status: "sealed",
      intact: false,
      sealedByThisService: false,
      signatureCount: 3,
    });
  });

  it("runs one check at a time per address, an IPv6 address counting as its /64", async () => {
    expect(addressKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:ffff:0:0:1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("::ffff:192.0.2.4")).toBe("192.0.2.4");
    expect(addressKey("192.0.2.4")).toBe("192.0.2.4");
    // Answered without a worker (400 not_pdf) once admitted: admission is what this test watches.
    const notPdf = Buffer.from("not a PDF");
    // A check whose body is still arriving holds its address's slot.
    const slow = httpRequest(`${api.baseUrl}/verify`, {
      method: "POST",
      headers: { "content-type": "application/pdf", "content-length": "100000", "x-forwarded-for": "2001:db8:1:2::1" },
    });
    const slowAnswer = new Promise<number>((resolve) => {
      slow.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      slow.on("error", () => resolve(-1));
    });
    slow.write("not a PDF");
    // Its admission claims the address's slot, then counts it in the database: wait for the count.
    for (let i = 0; i < 200; i++) {
      const [row] = await api.services.db
        .select()
        .from(rateLimits)
        .where(eq(rateLimits.key, "verify:ip:2001:db8:1:2::/64"));
      if (row) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const sameNetwork = await verify(notPdf, "2001:db8:1:2::ffff");
    expect(sameNetwork).toMatchObject({ status: 429, body: { error: { code: "rate_limited" } } });
    expect(sameNetwork.body.error.message).toContain("still running");
    expect((await verify(notPdf, "2001:db8:1:3::1")).status).toBe(400);
    slow.end(Buffer.alloc(100000 - 9, 0x20));
    expect(await slowAnswer).toBe(400);
    // Once it has ended, the same /64 is admitted again.
    expect((await verify(notPdf, "2001:db8:1:2::ffff")).status).toBe(400);
  }, 60_000);
});
