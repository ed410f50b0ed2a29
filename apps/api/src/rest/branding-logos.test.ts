import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOGO_MAX_BYTES } from "@clinsign/contracts";
import { auditLog, eq } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { makeSignaturePng } from "../testing/signature-fixtures";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let cookie: string;
let otherCookie: string;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
});
afterAll(() => api?.close());

const upload = (
  body: Buffer | string | FormData,
  contentType: string | null,
  c = cookie,
  extra: Record<string, string> = {},
) =>
  fetch(`${api.baseUrl}/staff/branding/logo`, {
    method: "POST",
    headers: { ...(c && { cookie: c }), ...(contentType && { "content-type": contentType }), ...extra },
    body: body as RequestInit["body"],
  });
const logo = (path: string) => fetch(`${api.baseUrl}${path}`);

describe("POST /staff/branding/logo and GET /branding/logos/…", () => {
  it("stores a PNG for the organization and serves it publicly with its type, nosniff, a sandboxing policy and a long cache", async () => {
    const png = makeSignaturePng(40, 20);
    const res = await upload(png, "image/png");
    expect(res.status).toBe(201);
    const body = (await res.json()) as { logoUrl: string; contentType: string; size: number };
    expect(body).toEqual({
      logoUrl: expect.stringMatching(new RegExp(`^/branding/logos/${org.orgId}/\\d{6}/[A-Za-z0-9_-]{32}$`)),
      contentType: "image/png",
      size: png.length,
    });

    const served = await logo(body.logoUrl);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("content-security-policy")).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    );
    expect(served.headers.get("cache-control")).toContain("max-age=31536000");
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);

    const [entry] = await api.services.db.select().from(auditLog).where(eq(auditLog.action, "branding.logo_uploaded"));
    expect(entry).toMatchObject({
      organizationId: org.orgId,
      actorType: "user",
      metadata: expect.objectContaining({ logoUrl: body.logoUrl, contentType: "image/png" }),
    });

    // The path is what the design takes as logo_url, and the portal gets it back as it is.
    const staff = api.trpc({ cookie });
    await staff.signatures.createDesign.mutate({
      institution_id: "logo-station",
      logo_url: body.logoUrl,
      design_parameters: {},
    });
    expect(await staff.signatures.getDesign.query({ institution_id: "logo-station" })).toMatchObject({
      logoUrl: body.logoUrl,
    });
    await expect(
      staff.signatures.replaceDesign.mutate({
        institution_id: "logo-station",
        logo_url: "/branding/logos/../x",
        design_parameters: {},
      }),
    ).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });

  it("takes the image as the file part of multipart/form-data too, and JPEG and WebP by their first bytes", async () => {
    const form = new FormData();
    form.append("file", new Blob([makeSignaturePng(10, 10)], { type: "image/png" }), "logo.png");
    const res = await upload(form, null);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { contentType: string }).contentType).toBe("image/png");

    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100)]);
    expect(await upload(jpeg, "application/octet-stream").then((r) => r.json())).toMatchObject({
      contentType: "image/jpeg",
    });
    const webp = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WEBPVP8 "), Buffer.alloc(50)]);
    expect(await upload(webp, "image/webp").then((r) => r.json())).toMatchObject({ contentType: "image/webp" });
  });

  it("refuses what is not an image (415), an empty body, other media types, a missing session and a cross-site POST", async () => {
    const notImage = await upload(Buffer.from("%PDF-1.7 not a logo"), "image/png");
    expect(notImage.status).toBe(415);
    expect(await notImage.json()).toMatchObject({
      error: { code: "unsupported_media_type", details: { field: "file" } },
    });
    expect((await upload(Buffer.from("<html><script>alert(1)</script></html>"), "image/svg+xml")).status).toBe(415);
    expect((await upload(Buffer.alloc(0), "image/png")).status).toBe(400);
    expect((await upload("{}", "application/json")).status).toBe(415);
    expect((await upload(makeSignaturePng(), "image/png", "")).status).toBe(401);
    expect((await upload(makeSignaturePng(), "image/png", cookie, { "sec-fetch-site": "cross-site" })).status).toBe(
      403,
    );
    expect((await fetch(`${api.baseUrl}/staff/branding/logo`, { headers: { cookie } })).status).toBe(404);
    expect((await logo(`/branding/logos/${org.orgId}/202601/${"A".repeat(32)}`)).status).toBe(404);
    expect((await logo(`/branding/logos/not-an-org/202601/${"A".repeat(32)}`)).status).toBe(404);
    expect((await logo(`/branding/logos/${org.orgId}/202601/${"A".repeat(32)}.png`)).status).toBe(404);
  });

  it("refuses an oversize body without reading it all: a declared length at once, a chunked one as it passes the cap", async () => {
    const url = new URL(`${api.baseUrl}/staff/branding/logo`);
    /**
     * Sends `body` and never ends the request: an answer can only come from a server that
     * stopped reading before the end of the body (there is none).
     */
    const sendUnfinished = (headers: Record<string, string>, body: Buffer) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          url,
          { method: "POST", headers: { cookie, "content-type": "image/png", ...headers } },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (c: string) => (text += c));
            res.on("end", () => resolve({ status: res.statusCode!, body: text }));
          },
        );
        req.on("error", reject);
        req.write(body);
      });
    const png = makeSignaturePng(10, 10);

    // Declares 10 MiB, sends a few bytes of it.
    const declared = await sendUnfinished({ "content-length": String(10 * 1024 * 1024) }, png);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({
      error: { code: "payload_too_large", details: { field: "file" } },
    });

    // No length: the cap is counted as the bytes arrive.
    const chunked = await sendUnfinished({}, Buffer.concat([png, Buffer.alloc(LOGO_MAX_BYTES + 64 * 1024, 1)]));
    expect(chunked.status).toBe(413);
    const multipart = await sendUnfinished(
      { "content-type": "multipart/form-data; boundary=xyz" },
      Buffer.concat([
        Buffer.from(
          '--xyz\r\ncontent-disposition: form-data; name="file"; filename="l.png"\r\ncontent-type: image/png\r\n\r\n',
        ),
        png,
        Buffer.alloc(LOGO_MAX_BYTES + 64 * 1024, 1),
      ]),
    );
    expect(multipart.status).toBe(413);
  });

  it("serves an uploaded SVG rebuilt from its allow-list: no script, handler, foreignObject or outside reference survives", async () => {
    const svg = `<?xml version="1.0"?>
<!-- editor comment -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 40" onload="alert(1)" width="100">
  <script>alert(document.cookie)</script>
  <title>Klinik &amp; Co</title>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#0a7f5a"/></linearGradient></defs>
  <rect x="0" y="0" width="100" height="40" fill="url(#g)" onclick="steal()" style="background:url(https://evil.example/x)"/>
  <circle cx="5" cy="5" r="4" fill="url(https://evil.example/track)"/>
  <a href="javascript:alert(1)"><text x="2" y="30">Klinik</text></a>
  <use xlink:href="https://evil.example/sprite.svg#logo"/>
  <use href="#g"/>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example"/></div></foreignObject>
  <style>@import url(https://evil.example/x.css);</style>
  <text x="1" y="39" font-family="Inter">Nord &lt;3</text>
  <sodipodi:namedview xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"/>
</svg>`;
    const res = await upload(Buffer.from(svg, "utf8"), "image/svg+xml");
    expect(res.status).toBe(201);
    const { logoUrl, contentType } = (await res.json()) as { logoUrl: string; contentType: string };
    expect(contentType).toBe("image/svg+xml");
    const served = await logo(logoUrl);
    expect(served.headers.get("content-type")).toBe("image/svg+xml");
    expect(served.headers.get("content-security-policy")).toContain("sandbox");
    const text = await served.text();
    for (const banned of [
      "script",
      "onload",
      "onclick",
      "foreignObject",
      "iframe",
      "javascript:",
      "evil.example",
      "style",
      "<a",
      "sodipodi",
      "alert",
    ]) {
      expect(text, banned).not.toContain(banned);
    }
    expect(text).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(text).toContain('<rect x="0" y="0" width="100" height="40" fill="url(#g)"/>');
    expect(text).toContain("<title>Klinik &amp; Co</title>");
    expect(text).toContain('<text x="1" y="39" font-family="Inter">Nord &lt;3</text>');
    expect(text).toContain('<use href="#g"/>');
    expect(text).not.toContain('<circle cx="5" cy="5" r="4" fill=');

    // A DOCTYPE (entity expansion) or broken XML is a 400, not stored.
    const withDoctype =
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>';
    expect((await upload(Buffer.from(withDoctype), "image/svg+xml")).status).toBe(400);
    expect(
      (await upload(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>'), "image/svg+xml")).status,
    ).toBe(400);
  });

  it("gives each organization its own files: another organization cannot overwrite or replace a logo", async () => {
    const ours = (await upload(makeSignaturePng(12, 12), "image/png").then((r) => r.json())) as { logoUrl: string };
    const theirs = (await upload(makeSignaturePng(30, 30), "image/png", otherCookie).then((r) => r.json())) as {
      logoUrl: string;
    };
    expect(theirs.logoUrl.startsWith(`/branding/logos/${other.orgId}/`)).toBe(true);
    expect(theirs.logoUrl).not.toBe(ours.logoUrl);
    // Nothing writes to a logo's path: a POST there is no endpoint, with or without a cookie.
    for (const c of [otherCookie, cookie]) {
      const res = await fetch(`${api.baseUrl}${ours.logoUrl}`, {
        method: "POST",
        headers: { cookie: c, "content-type": "image/png" },
        body: makeSignaturePng(30, 30),
      });
      expect(res.status).toBe(404);
    }
    const served = Buffer.from(await (await logo(ours.logoUrl)).arrayBuffer());
    expect(served.equals(makeSignaturePng(12, 12))).toBe(true);
  });
});
