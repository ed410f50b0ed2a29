import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { and, auditLog, eq, formRequests, sql } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate } from "../../testing/forms";
import { startReceiver, twilioEnv, type Receiver } from "../../testing/receiver";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let twilio: Receiver;
let cookie: string;
let staffCookie: string;
let otherCookie: string;

const MOBILE = "+49 170 1234567";

beforeAll(async () => {
  twilio = await startReceiver();
  api = await startTestApi({
    ...twilioEnv(twilio),
    PUBLIC_WEB_URL: "https://forms.test",
  });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
  await createStaffUser(api.services, {
    organizationId: org.orgId,
    email: "staff@nord.test",
    password: "correct horse battery",
    role: "staff",
  });
  staffCookie = await logInCookie(api, "staff@nord.test", "correct horse battery");
});
afterAll(async () => {
  await api?.close();
  await twilio?.close();
});
beforeEach(() => {
  twilio.requests.length = 0;
  twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: `SM${Math.random().toString(16).slice(2)}` }) });
});

const linkTokenOf = (i = -1) =>
  /\/f\/([A-Za-z0-9_-]+)/.exec(new URLSearchParams(twilio.requests.at(i)!.body).get("Body")!)![1]!;
const visitor = () => api.trpc({});

/** Sends a request as the staff member of `c` and returns its id and the token of the link the SMS carried. */
async function send(templateIdentifier: string, rnummer: string, c = cookie) {
  await api.trpc({ cookie: c }).formRequests.create.mutate({ phone: MOBILE, rnummer, templateIdentifier });
  const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, rnummer));
  return { id: row!.id, linkToken: linkTokenOf() };
}

describe("who may choose where a request's answers are e-mailed", () => {
  it("staff with the staff role may not name addresses (403, nothing stored or sent); owners and API tokens may", async () => {
    const t = await activeTemplate(org, undefined, "Anamnese Mail");
    const mailTo = { phone: MOBILE, templateIdentifier: t.identifier, emailTo: ["collector@elsewhere.test"] };
    await expect(
      api.trpc({ cookie: staffCookie }).formRequests.create.mutate({ ...mailTo, rnummer: "MAIL-staff" }),
    ).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    expect(
      await api.services.db.select().from(formRequests).where(eq(formRequests.rnummer, "MAIL-staff")),
    ).toHaveLength(0);
    expect(twilio.requests).toHaveLength(0);
    // Without addresses the staff role sends requests as before.
    await api
      .trpc({ cookie: staffCookie })
      .formRequests.create.mutate({ phone: MOBILE, templateIdentifier: t.identifier, rnummer: "MAIL-plain" });
    await api.trpc({ cookie }).formRequests.create.mutate({ ...mailTo, rnummer: "MAIL-owner" });
    await api.trpc({ bearer: org.token }).formRequests.create.mutate({ ...mailTo, rnummer: "MAIL-token" });
    const rows = await api.services.db
      .select()
      .from(formRequests)
      .where(sql`${formRequests.rnummer} like 'MAIL-%'`);
    expect(rows.map((r) => [r.rnummer, r.emailTo]).sort()).toEqual([
      ["MAIL-owner", ["collector@elsewhere.test"]],
      ["MAIL-plain", []],
      ["MAIL-token", ["collector@elsewhere.test"]],
    ]);
  });
});

describe("staff form requests list (the list contract)", () => {
  it("pages through every request once, filters by template, case number, state and time, and never shows another organization's", async () => {
    const t = await activeTemplate(org, undefined, "Anamnese Paging");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await send(t.identifier, `PAGE-${i}`)).id);
    const foreignTemplate = await activeTemplate(other);
    await send(foreignTemplate.identifier, "PAGE-foreign", otherCookie);
    const client = api.trpc({ cookie: staffCookie });

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.formRequests.list.query({
        templateIdentifier: t.identifier,
        limit: 2,
        ...(cursor && { cursor }),
      });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor ?? undefined;
      expect(page.hasMore).toBe(cursor !== undefined);
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const one = await client.formRequests.list.query({ rnummer: "PAGE-3" });
    expect(one.items).toHaveLength(1);
    expect(one.items[0]).toMatchObject({
      id: ids[3],
      state: "sent",
      templateTitle: "Anamnese Paging",
      phone: "+491701234567",
      smsAttempts: 1,
    });

    // A link whose lifetime passed is expired, whatever its SMS did.
    await api.services.db
      .update(formRequests)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(formRequests.id, ids[1]!));
    const expired = await client.formRequests.list.query({ templateIdentifier: t.identifier, state: "expired" });
    expect(expired.items.map((item) => item.id)).toEqual([ids[1]]);
    expect(
      (await client.formRequests.list.query({ templateIdentifier: t.identifier, state: "sent" })).items,
    ).toHaveLength(4);

    const future = new Date(Date.now() + 3600_000).toISOString();
    expect(
      (await client.formRequests.list.query({ templateIdentifier: t.identifier, createdFrom: future })).items,
    ).toEqual([]);
    expect(
      (await client.formRequests.list.query({ templateIdentifier: t.identifier, createdTo: future })).items,
    ).toHaveLength(5);

    const foreign = await api.trpc({ cookie: otherCookie }).formRequests.list.query({ limit: 200 });
    expect(foreign.items.map((item) => item.rnummer)).toEqual(["PAGE-foreign"]);
    expect((await client.formRequests.list.query({ rnummer: "PAGE-foreign" })).items).toEqual([]);
    await expect(client.formRequests.list.query({ cursor: "bm90LWEtY3Vyc29y" })).rejects.toMatchObject({
      data: { httpStatus: 400 },
    });
  });

  it("shows a failing SMS as retrying with its error, and the first open of the link as opened", async () => {
    const t = await activeTemplate(org);
    twilio.respond = () => ({ status: 500, body: JSON.stringify({ code: 20500, message: "Internal Server Error" }) });
    const failing = await send(t.identifier, "STATE-RETRY");
    const client = api.trpc({ cookie });
    const [retrying] = (await client.formRequests.list.query({ rnummer: "STATE-RETRY" })).items;
    expect(retrying).toMatchObject({ state: "sms_retrying", smsError: expect.stringContaining("HTTP 500") });
    expect((await client.formRequests.list.query({ state: "sms_retrying" })).items.map((item) => item.id)).toContain(
      failing.id,
    );

    twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: "SMok" }) });
    const opened = await send(t.identifier, "STATE-OPEN");
    await visitor().smsForm.open.query({ linkToken: opened.linkToken });
    expect((await client.formRequests.list.query({ rnummer: "STATE-OPEN" })).items[0]!.state).toBe("opened");
    const audits = await api.services.db
      .select()
      .from(auditLog)
      .where(
        and(eq(auditLog.action, "form_request.opened"), sql`${auditLog.metadata}->>'formRequestId' = ${opened.id}`),
      );
    expect(audits).toHaveLength(1);
  });
});

describe("resend and cancel", () => {
  it("resend issues a new link that opens; the old one no longer does; both SMS are in the request's history, redacted", async () => {
    const t = await activeTemplate(org);
    const request = await send(t.identifier, "RESEND-1");
    expect((await visitor().smsForm.open.query({ linkToken: request.linkToken })).status).toBe("sent");

    const result = await api.trpc({ cookie: staffCookie }).formRequests.resend.mutate({ id: request.id });
    expect(result).toMatchObject({ id: request.id, smsStatus: "sent" });
    const newToken = linkTokenOf();
    expect(newToken).not.toBe(request.linkToken);
    expect(new URLSearchParams(twilio.requests.at(-1)!.body).get("To")).toBe("+491701234567");

    await expect(visitor().smsForm.open.query({ linkToken: request.linkToken })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await expect(
      visitor().smsForm.verify.mutate({ linkToken: request.linkToken, rnummer: "RESEND-1", phone: MOBILE }),
    ).rejects.toMatchObject({ data: { httpStatus: 404 } });
    expect((await visitor().smsForm.open.query({ linkToken: newToken })).status).toBe("sent");
    expect(
      (await visitor().smsForm.verify.mutate({ linkToken: newToken, rnummer: "RESEND-1", phone: MOBILE })).otpRequired,
    ).toBe(false);

    const history = await api.trpc({ cookie: staffCookie }).formRequests.messages.query({ id: request.id });
    expect(history.map((m) => [m.purpose, m.status])).toEqual([
      ["form_request.link", "sent"],
      ["form_request.link", "sent"],
    ]);
    for (const message of history) {
      expect(message.body).toContain("https://forms.test/f/••••••");
      expect(message.body).not.toContain(request.linkToken);
      expect(message.body).not.toContain(newToken);
    }
    const audits = await api.services.db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.action, "form_request.link_resent"),
          sql`${auditLog.metadata}->>'formRequestId' = ${request.id}`,
        ),
      );
    expect(audits).toHaveLength(1);
    expect(audits[0]!.actorType).toBe("user");
  });

  it("cancel makes the link not open (the portal says it expired), ends an access, and refuses a resend", async () => {
    const t = await activeTemplate(org);
    const request = await send(t.identifier, "CANCEL-1");
    await visitor().smsForm.verify.mutate({ linkToken: request.linkToken, rnummer: "CANCEL-1", phone: MOBILE });

    expect(await api.trpc({ cookie: staffCookie }).formRequests.cancel.mutate({ id: request.id })).toEqual({
      id: request.id,
      status: "cancelled",
    });
    expect((await visitor().smsForm.open.query({ linkToken: request.linkToken })).status).toBe("expired");
    await expect(
      visitor().smsForm.verify.mutate({ linkToken: request.linkToken, rnummer: "CANCEL-1", phone: MOBILE }),
    ).rejects.toMatchObject({ data: { httpStatus: 404 } });
    const [row] = await api.services.db.select().from(formRequests).where(eq(formRequests.id, request.id));
    expect(row).toMatchObject({ status: "cancelled", accessTokenHash: null });

    const client = api.trpc({ cookie });
    expect((await client.formRequests.list.query({ rnummer: "CANCEL-1" })).items[0]!.state).toBe("cancelled");
    // Cancelling again changes nothing; a cancelled request gets no new link.
    await client.formRequests.cancel.mutate({ id: request.id });
    await expect(client.formRequests.resend.mutate({ id: request.id })).rejects.toMatchObject({
      data: { httpStatus: 409 },
    });
    const audits = await api.services.db
      .select()
      .from(auditLog)
      .where(
        and(eq(auditLog.action, "form_request.cancelled"), sql`${auditLog.metadata}->>'formRequestId' = ${request.id}`),
      );
    expect(audits).toHaveLength(1);
  });

  it("a submitted request is neither resent nor cancelled; another organization's is not found", async () => {
    const t = await activeTemplate(org);
    const request = await send(t.identifier, "DONE-1");
    await api.services.db.update(formRequests).set({ status: "submitted" }).where(eq(formRequests.id, request.id));
    const client = api.trpc({ cookie });
    await expect(client.formRequests.resend.mutate({ id: request.id })).rejects.toMatchObject({
      data: { httpStatus: 409 },
    });
    await expect(client.formRequests.cancel.mutate({ id: request.id })).rejects.toMatchObject({
      data: { httpStatus: 409 },
    });

    const foreign = api.trpc({ cookie: otherCookie });
    const open = await send(t.identifier, "FOREIGN-1");
    await expect(foreign.formRequests.cancel.mutate({ id: open.id })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await expect(foreign.formRequests.resend.mutate({ id: open.id })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    await expect(foreign.formRequests.messages.query({ id: open.id })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });
    expect((await visitor().smsForm.open.query({ linkToken: open.linkToken })).status).toBe("sent");
  });
});

describe("staff only", () => {
  it("answers 401 without a staff session, also to an API token", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    for (const client of [api.trpc({}), api.trpc({ bearer: org.token })]) {
      await expect(client.formRequests.list.query({})).rejects.toMatchObject({ data: { httpStatus: 401 } });
      await expect(client.formRequests.messages.query({ id })).rejects.toMatchObject({ data: { httpStatus: 401 } });
      await expect(client.formRequests.resend.mutate({ id })).rejects.toMatchObject({ data: { httpStatus: 401 } });
      await expect(client.formRequests.cancel.mutate({ id })).rejects.toMatchObject({ data: { httpStatus: 401 } });
    }
  });
});
