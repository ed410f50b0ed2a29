import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq, messages } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate } from "../../testing/forms";
import { startReceiver, twilioEnv, type Receiver } from "../../testing/receiver";
import { inTransaction, type OrgContext } from "../context";
import { queueMessage } from "./messaging";
import { createStaffUser } from "../identity/store/accounts";

const MOBILE = "+49 170 1234567";

describe("the SMS outbox on an install without a gateway", () => {
  let api: TestApi;
  let org: TestOrg;
  let other: TestOrg;
  let cookie: string;
  let staffCookie: string;

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_WEB_URL: "https://forms.test" });
    org = await api.createOrg("Outbox clinic");
    other = await api.createOrg("Other clinic");
    cookie = await logInCookie(api, org.ownerEmail, org.ownerPassword);
    await createStaffUser(api.services, {
      organizationId: org.orgId,
      email: "nurse@outbox.test",
      password: "nurse-password-1",
      role: "staff",
    });
    staffCookie = await logInCookie(api, "nurse@outbox.test", "nurse-password-1");
  });
  afterAll(() => api?.close());

  it("says the request is in the outbox, not sent, and that the outbox provider is used", async () => {
    const t = await activeTemplate(org);
    const client = api.trpc({ cookie });
    await client.formRequests.create.mutate({ templateIdentifier: t.identifier, phone: MOBILE, rnummer: "R-KEPT" });
    const [item] = (await client.formRequests.list.query({ rnummer: "R-KEPT" })).items;
    expect(item!.state).toBe("in_outbox");
    expect((await client.formRequests.list.query({ state: "in_outbox" })).items.map((i) => i.rnummer)).toContain(
      "R-KEPT",
    );
    expect((await client.formRequests.list.query({ state: "sent", rnummer: "R-KEPT" })).items).toHaveLength(0);
    expect(await client.messages.providers.query()).toEqual({ sms: "outbox", email: "outbox" });
  });

  it("lets an admin reveal a kept link once, audited without the secret; staff and other organizations cannot", async () => {
    const t = await activeTemplate(org);
    const client = api.trpc({ cookie });
    await client.formRequests.create.mutate({ templateIdentifier: t.identifier, phone: MOBILE, rnummer: "R-REVEAL" });
    const [request] = (await client.formRequests.list.query({ rnummer: "R-REVEAL" })).items;
    const [link] = await client.formRequests.messages.query({ id: request!.id });
    expect(link).toMatchObject({
      purpose: "form_request.link",
      revealable: true,
      revealedAt: null,
      body: expect.stringContaining("••••••"),
    });

    await expect(api.trpc({ cookie: staffCookie }).messages.reveal.mutate({ id: link!.id })).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    const otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
    await expect(api.trpc({ cookie: otherCookie }).messages.reveal.mutate({ id: link!.id })).rejects.toMatchObject({
      data: { httpStatus: 404 },
    });

    const revealed = await client.messages.reveal.mutate({ id: link!.id });
    const token = /https:\/\/forms\.test\/f\/([A-Za-z0-9_-]{20,})/.exec(revealed.body)?.[1];
    expect(token).toBeDefined();
    // The revealed link is the one the patient would get: it opens the request.
    expect(await api.trpc({}).smsForm.open.query({ linkToken: token! })).toMatchObject({
      status: "sent",
      templateTitle: "Anamnese",
    });

    await expect(client.messages.reveal.mutate({ id: link!.id })).rejects.toMatchObject({ data: { httpStatus: 409 } });
    const [row] = await api.services.db.select().from(messages).where(eq(messages.id, link!.id));
    expect(row).toMatchObject({ revealableBody: null, revealedAt: expect.any(Date) });
    expect((await client.formRequests.messages.query({ id: request!.id }))[0]).toMatchObject({
      revealable: false,
      revealedAt: expect.any(String),
    });

    const entries = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "message.revealed")));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actorType: "user",
      metadata: { messageId: link!.id, purpose: "form_request.link", formRequestId: request!.id },
    });
    expect(JSON.stringify(entries)).not.toContain(token);
  });

  it("wakes the job runner only once the transaction that queued the message has committed", async () => {
    const woken: string[] = [];
    const ctx: OrgContext = { ...org.ctx, services: { ...org.ctx.services, jobs: { wake: () => woken.push("wake") } } };
    const message = { channel: "email" as const, recipients: ["doc@clinic.test"], body: "Hallo", purpose: "test" };
    await inTransaction(ctx, async (tx) => {
      await queueMessage(tx, message);
      expect(woken).toEqual([]);
    });
    expect(woken).toEqual(["wake"]);
    await expect(
      inTransaction(ctx, async (tx) => {
        await queueMessage(tx, message);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(woken).toEqual(["wake"]);
  });
});

describe("the SMS outbox with a gateway configured", () => {
  let api: TestApi;
  let org: TestOrg;
  let twilio: Receiver;

  beforeAll(async () => {
    twilio = await startReceiver();
    twilio.respond = () => ({ status: 201, body: JSON.stringify({ sid: "SM1" }) });
    api = await startTestApi({ ...twilioEnv(twilio), PUBLIC_WEB_URL: "https://forms.test" });
    org = await api.createOrg("Gateway clinic");
  });
  afterAll(async () => {
    await api?.close();
    await twilio?.close();
  });

  it("keeps no revealable copy, reveals nothing and reports the request as sent", async () => {
    const t = await activeTemplate(org);
    const client = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
    await client.formRequests.create.mutate({ templateIdentifier: t.identifier, phone: MOBILE, rnummer: "R-GW" });
    const [request] = (await client.formRequests.list.query({ rnummer: "R-GW" })).items;
    expect(request!.state).toBe("sent");
    const [link] = await client.formRequests.messages.query({ id: request!.id });
    expect(link).toMatchObject({ provider: "twilio", revealable: false });
    const [row] = await api.services.db.select().from(messages).where(eq(messages.id, link!.id));
    expect(row!.revealableBody).toBeNull();
    await expect(client.messages.reveal.mutate({ id: link!.id })).rejects.toMatchObject({ data: { httpStatus: 409 } });
    expect(await client.messages.providers.query()).toEqual({ sms: "twilio", email: "outbox" });
  });
});
