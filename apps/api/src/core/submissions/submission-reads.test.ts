import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FormField } from "@clinsign/contracts";
import { eq, organizations, submissions } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, newSession, query } from "../../testing/forms";
import { pdfText } from "../../testing/pdf-text";
import { makeBilevelPng, makeSignaturePng, pngDataUrl } from "../../testing/signature-fixtures";
import { encodeCursor } from "../lists/keyset";
import { spareWorkerId } from "../pdf-worker/run";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let cookie: string;
let otherCookie: string;

const fields: FormField[] = [
  { id: "1", type: "text", key: "name", label: "Vollständiger Name" },
  { id: "2", type: "heading", label: "Versicherung" },
  {
    id: "3",
    type: "select",
    key: "insurance",
    label: "Versichert",
    options: ["gesetzlich", { value: "privat", label: "Privat versichert" }],
  },
  { id: "4", type: "textarea", key: "notes", label: "Anmerkungen" },
  { id: "5", type: "signature", key: "sig", label: "Unterschrift" },
  { id: "6", type: "checkbox", key: "consent", label: "Einwilligung" },
  { id: "7", type: "date", key: "born", label: "Geburtsdatum" },
];
// A 1×1 PNG, as the signature pad would send a (very small) drawing.
const PNG_1x1 =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
});
afterAll(() => api?.close());

/** A stored submission with a chosen time (several may share one, as rows of one second do). */
async function insert(
  o: TestOrg,
  values: Record<string, unknown>,
  options: { template?: string; rnummer?: string; phone?: string; at?: Date; fields?: FormField[] } = {},
) {
  const [row] = await o.ctx.scope
    .insert(submissions, {
      templateIdentifier: options.template ?? "anamnese",
      templateTitle: "Anamnese",
      templateSchema: { version: 3, fields: options.fields ?? fields },
      values,
      rnummer: options.rnummer ?? null,
      phone: options.phone ?? null,
      actorType: "session",
      actorId: null,
      ...(options.at && { createdAt: options.at }),
    })
    .returning({ id: submissions.id });
  return row!.id;
}

const download = (path: string, c = cookie) => fetch(`${api.baseUrl}${path}`, { headers: { cookie: c } });

describe("staff submissions list (the list contract)", () => {
  it("pages through every row once by cursor, ties in time included, and stays stable while rows arrive", async () => {
    const template = `paging-${Date.now()}`;
    const t0 = new Date("2024-03-01T10:00:00.000Z");
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push(await insert(org, { name: `P${i}` }, { template, at: i < 3 ? t0 : new Date(t0.getTime() + i * 1000) }));
    await insert(other, { name: "foreign" }, { template, at: t0 });
    const client = api.trpc({ cookie });

    const first = await client.submissions.list.query({ templateIdentifier: template, limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.hasMore).toBe(true);
    // Newer rows arrive between the pages: they do not shift, repeat or hide the rest.
    await insert(org, { name: "late 1" }, { template });
    await insert(org, { name: "late 2" }, { template, at: new Date(t0.getTime() + 500) });
    const seen = [...first.items];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await client.submissions.list.query({ templateIdentifier: template, limit: 3, cursor });
      seen.push(...page.items);
      cursor = page.nextCursor;
      if (!cursor) expect(page.hasMore).toBe(false);
    }
    const names = seen.map((s) => s.id);
    expect(new Set(names).size).toBe(names.length);
    // Everything that existed at the first page is there exactly once; the row inserted behind the cursor too.
    expect(seen.map((s) => s.id)).toEqual(expect.arrayContaining(ids));
    expect(seen).toHaveLength(8);
    const times = seen.map((s) => s.createdAt);
    expect([...times].sort().reverse()).toEqual(times);

    const oldest = await client.submissions.list.query({ templateIdentifier: template, limit: 2, sort: "oldest" });
    expect(oldest.items.every((s) => s.createdAt === t0.toISOString())).toBe(true);
  });

  it("orders rows of the same instant by creation, the same way in every page, both sorts and the exports", async () => {
    const template = `ties-${Date.now()}`;
    const at = new Date("2024-05-01T10:00:00.000Z");
    const ids: string[] = [];
    // Eight rows of one instant: a random tie-break would put them in creation order once in 40320.
    for (let i = 0; i < 8; i++) ids.push(await insert(org, { name: `T${i}` }, { template, at }));
    const client = api.trpc({ cookie });
    const all = async (sort: "newest" | "oldest") => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.submissions.list.query({ templateIdentifier: template, limit: 3, sort, cursor });
        seen.push(...page.items.map((s) => s.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return seen;
    };
    expect(await all("oldest")).toEqual(ids);
    expect(await all("newest")).toEqual([...ids].reverse());
    const json = (await (
      await download(
        `/staff/submissions/export?${query({ templateIdentifier: template, format: "json", sort: "oldest" })}`,
      )
    ).json()) as Array<{ id: string }>;
    expect(json.map((s) => s.id)).toEqual(ids);
    const csv = await (
      await download(`/staff/submissions/export?${query({ templateIdentifier: template, format: "csv" })}`)
    ).text();
    expect(
      csv
        .split("\r\n")
        .slice(1, -1)
        .map((line) => line.slice(0, 36)),
    ).toEqual([...ids].reverse());
  });

  it("filters by template, rnummer and time range, and never shows another organization's rows", async () => {
    const template = `filter-${Date.now()}`;
    const a = await insert(org, { name: "A" }, { template, rnummer: "R-1", at: new Date("2024-01-10T08:00:00Z") });
    const b = await insert(org, { name: "B" }, { template, rnummer: "R-2", at: new Date("2024-02-10T08:00:00Z") });
    await insert(
      org,
      { name: "C" },
      { template: `${template}-x`, rnummer: "R-1", at: new Date("2024-01-10T09:00:00Z") },
    );
    await insert(other, { name: "F" }, { template, rnummer: "R-1", at: new Date("2024-01-10T08:00:00Z") });
    const client = api.trpc({ cookie });
    const ids = async (input: Parameters<typeof client.submissions.list.query>[0]) =>
      (await client.submissions.list.query(input)).items.map((s) => s.id);

    expect(await ids({ templateIdentifier: template })).toEqual([b, a]);
    // The list names the patient (the form's name field) beside the case number.
    expect(
      (await client.submissions.list.query({ templateIdentifier: template })).items.map((s) => [
        s.patientName,
        s.rnummer,
      ]),
    ).toEqual([
      ["B", "R-2"],
      ["A", "R-1"],
    ]);
    expect(await ids({ templateIdentifier: template, rnummer: "R-1" })).toEqual([a]);
    expect(await ids({ templateIdentifier: template, createdFrom: "2024-02-01T00:00:00Z" })).toEqual([b]);
    expect(await ids({ templateIdentifier: template, createdTo: "2024-02-01T00:00:00+01:00" })).toEqual([a]);
    expect(
      await api.trpc({ cookie: otherCookie }).submissions.list.query({ templateIdentifier: template }),
    ).toMatchObject({ items: [expect.objectContaining({ rnummer: "R-1" })] });
    await expect(api.trpc({ cookie: otherCookie }).submissions.get.query({ id: a })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
  });

  it("answers 400 for a cursor it did not issue, a limit above 200 and a bad date", async () => {
    const client = api.trpc({ cookie });
    for (const cursor of ["not-a-cursor", encodeCursor(["2024-01-01", "x"]), encodeCursor([1]), "%%%"]) {
      await expect(client.submissions.list.query({ cursor })).rejects.toMatchObject({ data: { httpStatus: 400 } });
    }
    await expect(client.submissions.list.query({ limit: 201 })).rejects.toMatchObject({ data: { httpStatus: 400 } });
    await expect(client.submissions.list.query({ createdFrom: "yesterday" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
    await expect(api.trpc({}).submissions.list.query({})).rejects.toMatchObject({ data: { httpStatus: 401 } });
    // An API token is not a staff session: the staff list is for the admin UI.
    await expect(api.trpc({ bearer: org.token }).submissions.list.query({})).rejects.toMatchObject({
      data: { httpStatus: 401 },
    });
  });
});

describe("staff submission detail, exports and PDF", () => {
  it("shows each value under its label in the version submitted, with the e-mail outcome", async () => {
    const t = await activeTemplate(org, fields, "Aufnahme");
    const sessionId = await newSession(api, org, t.identifier, { emailTo: ["records@clinic.test"], rnummer: "R-77" });
    const res = await api.request("POST", "/api/embed/submit", {
      body: { sessionId, values: { name: "Erika", insurance: "privat", sig: PNG_1x1 } },
    });
    expect(res.status).toBe(200);
    const detail = await api.trpc({ cookie }).submissions.get.query({ id: res.body.submissionId });
    expect(detail.answers.map((a) => [a.label, a.text])).toEqual([
      ["Vollständiger Name", "Erika"],
      ["Versichert", "Privat versichert"],
      ["Unterschrift", "[Unterschrift]"],
    ]);
    expect(detail.answers[2]!.value).toBe(PNG_1x1);
    expect(detail.emails).toEqual([
      expect.objectContaining({ recipients: ["records@clinic.test"], status: expect.any(String) }),
    ]);
    expect(detail.webhooks).toEqual([]);
    expect(detail.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("exports the filter as Excel-safe CSV with a BOM and as JSON, for the own organization only", async () => {
    const template = `export-${Date.now()}`;
    await insert(
      org,
      { name: "=cmd|' /C calc'!A0", insurance: "privat", notes: "zwei\nZeilen" },
      { template, rnummer: "R-9" },
    );
    await insert(org, { name: "Zweite" }, { template });
    await insert(other, { name: "foreign" }, { template });

    const csv = await download(`/staff/submissions/export?${query({ templateIdentifier: template, format: "csv" })}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.headers.get("content-disposition")).toMatch(/attachment; filename="submissions-.*\.csv"/);
    const bytes = new Uint8Array(await csv.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes.slice(3));
    expect(text).toContain(`;'=cmd|' /C calc'!A0;Privat versichert;"zwei\nZeilen"\r\n`);
    expect(text).not.toContain("foreign");
    expect(text).toContain("Zweite");

    const json = await download(
      `/staff/submissions/export?${query({ templateIdentifier: template, format: "json", sort: "oldest" })}`,
    );
    const items = (await json.json()) as Array<{ values: Record<string, unknown> }>;
    expect(items.map((i) => i.values.name)).toEqual(["=cmd|' /C calc'!A0", "Zweite"]);

    expect((await download(`/staff/submissions/export`, "")).status).toBe(401);
    expect((await download(`/staff/submissions/export?format=xml`)).status).toBe(400);
  });

  it("writes the CSV for the clinic's spreadsheet: labels, its language, time zone, separator and phone numbers", async () => {
    const template = `clinic-${Date.now()}`;
    const at = new Date("2024-03-01T10:05:09.000Z");
    const values = { name: "Erika", consent: true, born: "1980-07-14", insurance: "gesetzlich", old: "x;=1+1" };
    await insert(org, values, { template, rnummer: "R-1", phone: "+491701234567", at });
    await insert(org, { consent: false }, { template, phone: "+436601234567", at: new Date(at.getTime() + 1000) });
    const lines = async (c: string) => {
      const text = (
        await (
          await download(
            `/staff/submissions/export?${query({ templateIdentifier: template, format: "csv", sort: "oldest" })}`,
            c,
          )
        ).text()
      ).replace(/^\uFEFF/, "");
      return text.split("\r\n").filter(Boolean);
    };

    // The default organization writes German, on the Berlin clock, ;-separated for German Excel.
    const [header, first, second] = await lines(cookie);
    expect(header).toBe(
      "Einreichungs-ID;Eingereicht (Europe/Berlin);Formular;Formularversion;Fallnummer;Mobilnummer;Quelle;Vollständiger Name;Versichert;Einwilligung;Geburtsdatum;old",
    );
    expect(first!.split(";").slice(1)).toEqual([
      "01.03.2024 11:05:09",
      "Anamnese",
      "3",
      "R-1",
      "0170 1234567",
      "Eingebettetes Formular",
      "Erika",
      "gesetzlich",
      "ja",
      "14.07.1980",
      '"x',
      '=1+1"',
    ]);
    expect(first).toContain(';"x;=1+1"');
    expect(second!.split(";").slice(5, 10)).toEqual(["+43 660 1234567", "Eingebettetes Formular", "", "", "nein"]);

    // An English clinic in another time zone.
    await api.trpc({ cookie }).organization.update.mutate({ locale: "en", timeZone: "America/New_York" });
    try {
      const [enHeader, enFirst] = await lines(cookie);
      expect(enHeader).toBe(
        "Submission ID,Submitted (America/New_York),Form,Form version,Case number,Mobile number,Source,Vollständiger Name,Versichert,Einwilligung,Geburtsdatum,old",
      );
      expect(enFirst!.split(",").slice(1, 11)).toEqual([
        "2024-03-01 05:05:09",
        "Anamnese",
        "3",
        "R-1",
        "0170 1234567",
        "Embedded form",
        "Erika",
        "gesetzlich",
        "yes",
        "1980-07-14",
      ]);
      const id = (await api.trpc({ cookie }).submissions.list.query({ templateIdentifier: template, sort: "oldest" }))
        .items[0]!.id;
      const detail = await api.trpc({ cookie }).submissions.get.query({ id });
      expect(detail.timeZone).toBe("America/New_York");
      expect(detail.answers.find((a) => a.key === "consent")?.text).toBe("yes");
    } finally {
      await api.trpc({ cookie }).organization.update.mutate({ locale: "de", timeZone: "Europe/Berlin" });
    }
    const id = (await api.trpc({ cookie }).submissions.list.query({ templateIdentifier: template, sort: "oldest" }))
      .items[0]!.id;
    const detail = await api.trpc({ cookie }).submissions.get.query({ id });
    expect(detail.answers.map((a) => [a.key, a.text])).toEqual(
      expect.arrayContaining([
        ["consent", "ja"],
        ["born", "14.07.1980"],
      ]),
    );
  });

  it("renders one submission as a PDF with the clinic's name, labels, values, signature and a hashed footer", async () => {
    const id = await insert(
      org,
      { name: "Erika Mustermann", insurance: "gesetzlich", sig: PNG_1x1 },
      { rnummer: "R-5", at: new Date("2024-03-01T10:00:00.000Z") },
    );
    const res = await download(`/staff/submissions/${id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    const text = await pdfText(new Uint8Array(await res.arrayBuffer()));
    // A new organization writes German, in Europe/Berlin (UTC+1 in March).
    for (const expected of [
      "Klinik Nord",
      "Anamnese",
      "Vollständiger Name",
      "Erika Mustermann",
      "Versichert",
      "gesetzlich",
      "Unterschrift",
      "Referenz: R-5",
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).toContain("Eingereicht: 01.03.2024, 11:00:00 (Europe/Berlin)");
    expect(text).toContain(`Einreichung ${id} - Seite 1 von 1`);
    expect(text).not.toContain("rnummer");
    const { sha256 } = await api.trpc({ cookie }).submissions.get.query({ id });
    expect(text).toContain(`SHA-256 ${sha256}`);
    expect((await download(`/staff/submissions/${id}/pdf`, otherCookie)).status).toBe(404);
  });

  it("writes dates, times, numbers and yes/no in the organization's language and time zone", async () => {
    const typed: FormField[] = [
      { id: "1", type: "date", key: "born", label: "Born" },
      { id: "2", type: "checkbox", key: "consent", label: "Consent" },
      { id: "3", type: "checkbox", key: "photos", label: "Photos" },
      { id: "4", type: "number", key: "weight", label: "Weight" },
    ];
    const values = { born: "1980-12-24", consent: true, photos: false, weight: 72.5 };
    const at = new Date("2024-07-01T02:30:00.000Z");
    const german = await pdfText(
      new Uint8Array(
        await (
          await download(`/staff/submissions/${await insert(org, values, { fields: typed, at })}/pdf`)
        ).arrayBuffer(),
      ),
    );
    for (const expected of [
      "Eingereicht: 01.07.2024, 04:30:00 (Europe/Berlin)",
      "24.12.1980",
      "Ja",
      "Nein",
      "72,5",
      "Formularversion: 3",
    ])
      expect(german).toContain(expected);

    const clinic = await api.createOrg("Riverside Clinic");
    await api.services.db
      .update(organizations)
      .set({ locale: "en", timeZone: "America/New_York" })
      .where(eq(organizations.id, clinic.orgId));
    const clinicCookie = await logInCookie(api, clinic.ownerEmail, clinic.ownerPassword);
    const id = await insert(clinic, values, { fields: typed, at });
    const english = await pdfText(
      new Uint8Array(await (await download(`/staff/submissions/${id}/pdf`, clinicCookie)).arrayBuffer()),
    );
    for (const expected of [
      "Riverside Clinic",
      "Submitted: 30 Jun 2024, 22:30:00 (America/New_York)",
      "24 Dec 1980",
      "Yes",
      "No",
      "72.5",
      "Form version: 3",
      `Submission ${id} - page 1 of 1`,
    ]) {
      expect(english).toContain(expected);
    }
    expect(english).not.toMatch(/\b(true|false|1980-12-24)\b/);
  });

  it("lays the PDF out in the PDF worker, signature image included", async () => {
    const id = await insert(org, { name: "Worker", sig: pngDataUrl(makeSignaturePng(1200, 400)) });
    const before = spareWorkerId();
    const res = await download(`/staff/submissions/${id}/pdf`);
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    // Each PDF task takes a worker and starts the next spare: a new one means the work ran there.
    expect(spareWorkerId()).not.toBeNull();
    expect(spareWorkerId()).not.toBe(before);
    expect(Buffer.from(bytes).toString("latin1")).toMatch(/\/Subtype\s*\/Image/);
    expect(await pdfText(bytes)).not.toContain("[Unterschrift als Bild nicht darstellbar]");
  });

  it("keeps /healthz answering while it builds the PDF of a stored hostile signature (10000x10000 px in 12 KB), shown as text", async () => {
    // Stored as a submission accepted before signatures were measured at submit.
    const hostile = makeBilevelPng(10_000, 10_000);
    expect(hostile.length).toBeLessThan(20_000);
    const id = await insert(org, { name: "Hostile", sig: pngDataUrl(hostile) });
    let settled = false;
    const pending = download(`/staff/submissions/${id}/pdf`).finally(() => (settled = true));
    const latencies: number[] = [];
    do {
      const started = performance.now();
      expect((await api.request("GET", "/healthz")).status).toBe(200);
      latencies.push(performance.now() - started);
    } while (!settled);
    const res = await pending;
    expect(res.status).toBe(200);
    // Decoding it on the request thread stalled everything for seconds; generous for a busy CI machine.
    expect(Math.max(...latencies)).toBeLessThan(1000);
    expect(await pdfText(new Uint8Array(await res.arrayBuffer()))).toContain(
      "[Unterschrift als Bild nicht darstellbar]",
    );
  });

  it("lets staff export submissions (not only admins)", async () => {
    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: "nurse@submissions.test",
      password: "nurse-password-1",
      role: "staff",
    });
    const staffCookie = await logInCookie(api, "nurse@submissions.test", "nurse-password-1");
    expect((await download(`/staff/submissions/export?format=json`, staffCookie)).status).toBe(200);
  });
});
