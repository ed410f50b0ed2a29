import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, formSessions, formUploads, inArray } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, newSession } from "../../testing/forms";
import { sweepOrphanUploads } from "./upload-sweeper";

const HOUR = 3600_000;

interface Uploaded {
  name: string;
  path: string;
  url: string;
  size: number;
  type: string;
}

describe.each(["fs", "db"] as const)("the orphaned-upload sweep (STORAGE=%s)", (storage) => {
  let api: TestApi;
  let org: TestOrg;

  beforeAll(async () => {
    api = await startTestApi({ STORAGE: storage, UPLOAD_ORPHAN_HOURS: "1" });
    org = await api.createOrg("Klinik Nord");
  });
  afterAll(() => api?.close());

  async function form() {
    const t = await activeTemplate(org, [
      { id: "1", type: "file", key: "scan", label: "Befund", accept: "application/pdf" },
      { id: "2", type: "text", key: "note", label: "Notiz" },
    ]);
    return { t, sessionId: await newSession(api, org, t.identifier) };
  }

  async function upload(sessionId: string, name: string): Promise<Uploaded> {
    const body = new FormData();
    body.append("sessionId", sessionId);
    body.append("file", new Blob([`%PDF-1.4\n${name}\n`], { type: "application/pdf" }), name);
    const res = await fetch(`${api.baseUrl}/api/embed/uploads`, { method: "POST", body });
    expect(res.status).toBe(200);
    return ((await res.json()) as { files: Uploaded[] }).files[0]!;
  }

  /** Lets `hours` pass for these uploads. */
  const age = (files: Uploaded[], hours: number) =>
    api.services.db
      .update(formUploads)
      .set({ createdAt: new Date(Date.now() - hours * HOUR) })
      .where(
        inArray(
          formUploads.storageKey,
          files.map((f) => f.path),
        ),
      );
  const row = async (file: Uploaded) =>
    (await api.services.db.select().from(formUploads).where(eq(formUploads.storageKey, file.path)))[0];

  it("deletes files and rows of uploads no submission references once they are older than UPLOAD_ORPHAN_HOURS, batch by batch", async () => {
    const { sessionId } = await form();
    const submitted = await upload(sessionId, "submitted.pdf");
    const orphans = [
      await upload(sessionId, "a.pdf"),
      await upload(sessionId, "b.pdf"),
      await upload(sessionId, "c.pdf"),
    ];
    const recent = await upload(sessionId, "recent.pdf");
    expect(
      (await api.request("POST", "/api/embed/submit", { body: { sessionId, values: { scan: [submitted] } } })).status,
    ).toBe(200);
    await age([submitted, ...orphans], 2);

    expect(await sweepOrphanUploads(api.services, { batchSize: 2 })).toBe(3);
    for (const orphan of orphans) {
      expect(await row(orphan)).toBeUndefined();
      expect(await api.services.storage.get(orphan.path)).toBeNull();
    }
    // The submitted file stays, marked so the sweep never looks at it again; the recent one is untouched.
    expect(await row(submitted)).toMatchObject({ keptAt: expect.any(Date), deletingSince: null });
    expect(await api.services.storage.get(submitted.path)).not.toBeNull();
    expect(await row(recent)).toMatchObject({ keptAt: null, deletingSince: null });
    expect(await api.services.storage.get(recent.path)).not.toBeNull();
    expect(await sweepOrphanUploads(api.services)).toBe(0);
    // A draft that still names a deleted file cannot submit it.
    const late = await api.request("POST", "/api/embed/submit", {
      body: { sessionId, values: { scan: [orphans[0]] } },
    });
    expect(late.status).toBe(400);
    expect(late.body.fieldErrors).toEqual([
      { key: "scan", message: "references a file that was not uploaded for this form" },
    ]);
  });

  it("keeps the row of a file whose deletion failed, refuses it to submissions, and finishes it on a later sweep", async () => {
    const { sessionId } = await form();
    const file = await upload(sessionId, "stuck.pdf");
    await age([file], 2);
    const realDelete = api.services.storage.delete.bind(api.services.storage);
    api.services.storage.delete = async () => {
      throw new Error("storage unavailable");
    };
    try {
      expect(await sweepOrphanUploads(api.services)).toBe(0);
    } finally {
      api.services.storage.delete = realDelete;
    }
    // Still a row for the bytes (no file without a row), claimed, and no longer usable.
    expect(await row(file)).toMatchObject({ deletingSince: expect.any(Date) });
    expect(await api.services.storage.get(file.path)).not.toBeNull();
    expect(
      (await api.request("POST", "/api/embed/submit", { body: { sessionId, values: { scan: [file] } } })).status,
    ).toBe(400);
    // The claim is taken again only after it lapsed.
    expect(await sweepOrphanUploads(api.services)).toBe(0);
    expect(await sweepOrphanUploads(api.services, { claimSeconds: 0 })).toBe(1);
    expect(await row(file)).toBeUndefined();
    expect(await api.services.storage.get(file.path)).toBeNull();
  });

  it("deletes a public-embed visitor's unsubmitted uploads once its session has expired, keeps a submitted visitor's", async () => {
    const { t, sessionId: personal } = await form();
    const owner = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
    const { code } = await owner.publicEmbeds.save.mutate({
      templateIdentifier: t.identifier,
      allowedOrigins: ["https://clinic.example"],
      enabled: true,
    });
    const visit = async () => (await api.trpc({}).publicEmbeds.start.mutate({ code })).sessionId;
    const [leaving, submitting, staying] = [await visit(), await visit(), await visit()];
    const abandoned = await upload(leaving, "abandoned.pdf");
    const submitted = await upload(submitting, "submitted.pdf");
    const live = await upload(staying, "live.pdf");
    const personalFile = await upload(personal, "personal.pdf");
    expect(
      (
        await api.request("POST", "/api/embed/submit", {
          body: { sessionId: submitting, values: { scan: [submitted] } },
        })
      ).status,
    ).toBe(200);
    expect(await sweepOrphanUploads(api.services)).toBe(0);
    // The sessions end (a personal link's too: its files wait out UPLOAD_ORPHAN_HOURS as before).
    const ended = await Promise.all(
      [abandoned, submitted, personalFile].map(async (file) =>
        (await row(file))!.uploaderKey!.slice("session:".length),
      ),
    );
    await api.services.db
      .update(formSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(inArray(formSessions.id, ended));

    expect(await sweepOrphanUploads(api.services)).toBe(1);
    expect(await row(abandoned)).toBeUndefined();
    expect(await api.services.storage.get(abandoned.path)).toBeNull();
    expect(await row(submitted)).toMatchObject({ keptAt: expect.any(Date) });
    expect(await api.services.storage.get(submitted.path)).not.toBeNull();
    for (const file of [live, personalFile]) {
      expect(await row(file)).toMatchObject({ keptAt: null, deletingSince: null });
      expect(await api.services.storage.get(file.path)).not.toBeNull();
    }
  });
});
