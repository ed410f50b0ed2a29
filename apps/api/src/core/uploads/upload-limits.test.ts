import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, formUploads, sum } from "@clinsign/db";
import { startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, creds, newSession } from "../../testing/forms";

let api: TestApi;
let org: TestOrg;

const KB = 1000;
const CAP = 1024 * 1024;
const pdf = (size: number) => Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(size - 9, 0x20)]);

beforeAll(async () => {
  api = await startTestApi({ UPLOAD_MAX_MB_PER_FORM: "1" });
  org = await api.createOrg("Klinik Nord");
});
afterAll(() => api?.close());

async function upload(
  fields: Record<string, string>,
  size: number,
): Promise<{ status: number; body: { ok: boolean; error?: string } }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append("file", new Blob([new Uint8Array(pdf(size))], { type: "application/pdf" }), "scan.pdf");
  const res = await fetch(`${api.baseUrl}/api/embed/uploads`, { method: "POST", body: form });
  return { status: res.status, body: (await res.json()) as { ok: boolean; error?: string } };
}

/** Stored upload files on disk (STORAGE=fs), so a refused upload is seen to leave none behind. */
function storedFiles(): number {
  const root = join(api.dataDir, "files", "form-uploads");
  try {
    return readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  } catch {
    return 0;
  }
}

async function rows(uploaderKey: string) {
  const [row] = await api.services.db
    .select({ total: sum(formUploads.size) })
    .from(formUploads)
    .where(eq(formUploads.uploaderKey, uploaderKey));
  return Number(row?.total ?? 0);
}

describe("total upload bytes per embed session (UPLOAD_MAX_MB_PER_FORM)", () => {
  it("refuses the part that would pass the session's total with 413 while it arrives, and keeps nothing of it", async () => {
    const t = await activeTemplate(org, [
      { id: "1", type: "file", key: "scan", label: "Befund", accept: "application/pdf", maxSizeMb: 1 },
    ]);
    const sessionId = await newSession(api, org, t.identifier);
    expect((await upload({ sessionId }, 600 * KB)).status).toBe(200);
    const before = storedFiles();
    const over = await upload({ sessionId }, 600 * KB);
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ ok: false, error: "the files of this form may total at most 1 MB" });
    expect(storedFiles()).toBe(before);
    // What is left of the budget still takes a smaller file, then nothing more.
    expect((await upload({ sessionId }, 400 * KB)).status).toBe(200);
    expect((await upload({ sessionId }, 100 * KB)).status).toBe(413);
    expect((await upload({ sessionId }, 48 * KB)).status).toBe(200);
    expect((await upload({ sessionId }, 600)).status).toBe(413);
    const [{ id }] = (await api.services.db
      .select({ id: formUploads.uploaderKey })
      .from(formUploads)
      .where(eq(formUploads.templateIdentifier, t.identifier))
      .limit(1)) as [{ id: string }];
    expect(id).toMatch(/^session:/);
    expect(await rows(id)).toBe(1048 * KB);
    // Another session has a budget of its own; the organization's token is not capped this way.
    expect((await upload({ sessionId: await newSession(api, org, t.identifier) }, 600 * KB)).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await upload({ ...creds(org), templateIdentifier: t.identifier }, 600 * KB)).status).toBe(200);
  });

  it("holds parallel uploads of one session to the total together", async () => {
    const t = await activeTemplate(org, [
      { id: "1", type: "file", key: "scan", label: "Befund", accept: "application/pdf", maxSizeMb: 1 },
    ]);
    const sessionId = await newSession(api, org, t.identifier);
    const before = storedFiles();
    const results = await Promise.all(Array.from({ length: 6 }, () => upload({ sessionId }, 300 * KB)));
    const accepted = results.filter((r) => r.status === 200).length;
    expect(results.every((r) => r.status === 200 || r.status === 413)).toBe(true);
    expect(accepted).toBe(3);
    const [row] = await api.services.db
      .select({ key: formUploads.uploaderKey })
      .from(formUploads)
      .where(eq(formUploads.templateIdentifier, t.identifier))
      .limit(1);
    expect(await rows(row!.key!)).toBeLessThanOrEqual(CAP);
    expect(storedFiles()).toBe(before + 3);
  });
});
