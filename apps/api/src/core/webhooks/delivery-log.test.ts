import { createHmac } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq, jobs, webhookDeliveries } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { activeTemplate, newSession } from "../../testing/forms";
import { startReceiver, type Receiver } from "../../testing/receiver";
import { rotateWebhookSecret, updateOrganizationSettings } from "../organizations/organizations";
import { createStaffUser } from "../identity/store/accounts";

let api: TestApi;
let org: TestOrg;
let other: TestOrg;
let receiver: Receiver;
let secret: string;
let cookie: string;
let otherCookie: string;

beforeAll(async () => {
  receiver = await startReceiver();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${receiver.port}` });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  secret = (await rotateWebhookSecret(org.ctx)).secret;
  await updateOrganizationSettings(org.ctx, { webhookUrls: [`${receiver.url}/hook`] });
  await updateOrganizationSettings(other.ctx, { webhookUrls: [`${receiver.url}/other`] });
  await createStaffUser(api.services, {
    organizationId: org.orgId,
    email: "staff@nord.test",
    password: "correct horse battery",
    role: "staff",
  });
  cookie = await logInCookie(api, "staff@nord.test", "correct horse battery");
  otherCookie = await logInCookie(api, other.ownerEmail, other.ownerPassword);
});
afterAll(async () => {
  await api?.close();
  await receiver?.close();
});
beforeEach(async () => {
  // Retries of earlier tests wait for tomorrow: each test sees only its own attempts.
  await api.services.db
    .update(jobs)
    .set({ runAt: new Date(Date.now() + 86_400_000) })
    .where(eq(jobs.status, "pending"));
  receiver.requests.length = 0;
  receiver.respond = () => ({ status: 200, body: "ok" });
});

describe("staff webhook delivery log (the list contract)", () => {
  it("pages through attempts, filters by event, template and outcome, and never shows another organization's", async () => {
    const client = api.trpc({ cookie });
    const t = await activeTemplate(org);
    const u = await activeTemplate(org);
    for (const event of ["form.opened", "form.closed", "form.draft_saved"] as const)
      await client.webhooks.test.mutate({ templateIdentifier: t.identifier, event });
    receiver.respond = () => ({ status: 503, body: "busy" });
    await client.webhooks.test.mutate({ templateIdentifier: u.identifier, event: "form.opened" });
    const foreignTemplate = await activeTemplate(other);
    await api
      .trpc({ cookie: otherCookie })
      .webhooks.test.mutate({ templateIdentifier: foreignTemplate.identifier, event: "form.opened" });

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.webhooks.attempts.query({ limit: 3, ...(cursor && { cursor }) });
      seen.push(...page.items.map((item) => `${item.eventType}:${item.templateIdentifier}`));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([
      `form.opened:${u.identifier}`,
      `form.draft_saved:${t.identifier}`,
      `form.closed:${t.identifier}`,
      `form.opened:${t.identifier}`,
    ]);

    expect((await client.webhooks.attempts.query({ eventType: "form.closed" })).items).toHaveLength(1);
    expect((await client.webhooks.attempts.query({ templateIdentifier: t.identifier })).items).toHaveLength(3);
    const failed = await client.webhooks.attempts.query({ outcome: "failed" });
    expect(failed.items).toHaveLength(1);
    expect(failed.items[0]).toMatchObject({
      templateIdentifier: u.identifier,
      delivered: false,
      statusCode: 503,
      errorMessage: "HTTP 503",
      attempt: 1,
    });
    expect((await client.webhooks.attempts.query({ outcome: "delivered" })).items).toHaveLength(3);
    expect((await client.webhooks.attempts.query({ templateIdentifier: foreignTemplate.identifier })).items).toEqual(
      [],
    );
    const foreign = await api.trpc({ cookie: otherCookie }).webhooks.attempts.query({});
    expect(foreign.items.map((item) => item.templateIdentifier)).toEqual([foreignTemplate.identifier]);
  });

  it("shows the exact body that was signed, and resends it as a new delivery", async () => {
    const client = api.trpc({ cookie });
    const t = await activeTemplate(org);
    await client.webhooks.test.mutate({ templateIdentifier: t.identifier, event: "form.closed", data: { note: "ü" } });
    const [attempt] = (await client.webhooks.attempts.query({ templateIdentifier: t.identifier })).items;
    const delivery = await client.webhooks.delivery.query({ deliveryId: attempt!.deliveryId });
    expect(delivery.body).toBe(receiver.requests[0]!.body);
    expect(createHmac("sha256", secret).update(delivery.body).digest("hex")).toBe(
      receiver.requests[0]!.headers["x-service-signature"],
    );
    expect(delivery).toMatchObject({ status: "delivered", eventType: "form.closed", url: `${receiver.url}/hook` });
    expect(delivery.attempts.map((a) => a.statusCode)).toEqual([200]);

    const resent = await client.webhooks.resend.mutate({ deliveryId: delivery.id });
    expect(resent.delivered).toBe(true);
    expect(receiver.requests[1]!.body).toBe(delivery.body);
    expect(
      (await client.webhooks.attempts.query({ templateIdentifier: t.identifier })).items.map((a) => a.deliveryId),
    ).toEqual([resent.deliveryId, delivery.id]);

    await expect(
      api.trpc({ cookie: otherCookie }).webhooks.delivery.query({ deliveryId: delivery.id }),
    ).rejects.toMatchObject({ data: { httpStatus: 404 } });
    await expect(
      api.trpc({ cookie: otherCookie }).webhooks.resend.mutate({ deliveryId: delivery.id }),
    ).rejects.toMatchObject({ data: { httpStatus: 404 } });
  });

  it("resends only to a URL that is still configured: a default URL, or a valid session's", async () => {
    const client = api.trpc({ cookie });
    const t = await activeTemplate(org);
    await client.webhooks.test.mutate({ templateIdentifier: t.identifier, event: "form.closed" });
    const [toDefault] = (await client.webhooks.attempts.query({ templateIdentifier: t.identifier })).items;
    const sessionId = await newSession(api, org, t.identifier, { webhookUrl: `${receiver.url}/session-hook` });
    await api.request("POST", "/api/embed/events", { body: { sessionId, event: "form.opened" } });
    // The event is queued for the background runner: its delivery row names the session's URL.
    const [toSession] = await api.services.db
      .select({ deliveryId: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.url, `${receiver.url}/session-hook`));
    receiver.requests.length = 0;

    // The default URL was removed from the settings: its stored bodies no longer go there.
    await updateOrganizationSettings(org.ctx, { webhookUrls: [`${receiver.url}/new-hook`] });
    try {
      await expect(client.webhooks.resend.mutate({ deliveryId: toDefault!.deliveryId })).rejects.toMatchObject({
        data: { httpStatus: 409 },
        message: expect.stringContaining("no longer configured"),
      });
    } finally {
      await updateOrganizationSettings(org.ctx, { webhookUrls: [`${receiver.url}/hook`] });
    }
    // The session still names its URL: the resend goes there, until the session is revoked.
    expect((await client.webhooks.resend.mutate({ deliveryId: toSession!.deliveryId })).delivered).toBe(true);
    expect(receiver.requests.map((r) => r.path)).toEqual(["/session-hook"]);
    const [embedSession] = (await api.trpc({ cookie }).sessions.list.query({ templateIdentifier: t.identifier })).items;
    await api.trpc({ cookie }).sessions.revoke.mutate({ id: embedSession!.id });
    await expect(client.webhooks.resend.mutate({ deliveryId: toSession!.deliveryId })).rejects.toMatchObject({
      data: { httpStatus: 409 },
    });
    expect(receiver.requests).toHaveLength(1);
    // Back among the defaults, the first delivery may be resent again.
    expect((await client.webhooks.resend.mutate({ deliveryId: toDefault!.deliveryId })).delivered).toBe(true);
  });

  it("shows every role the URLs and only the secret's prefix", async () => {
    const overview = await api.trpc({ cookie }).webhooks.overview.query();
    expect(overview).toEqual({
      webhookUrls: [`${receiver.url}/hook`],
      hasSecret: true,
      secretPrefix: secret.slice(0, "whsec_".length + 4),
    });
    expect(secret.length).toBeGreaterThan(overview.secretPrefix!.length + 16);
    expect(await api.trpc({ cookie: otherCookie }).webhooks.overview.query()).toMatchObject({
      hasSecret: false,
      secretPrefix: null,
    });
    // Changing them stays with owners and admins.
    await expect(api.trpc({ cookie }).organization.update.mutate({ webhookUrls: [] })).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
  });

  it("answers 401 without a staff session, also to an API token", async () => {
    const deliveryId = "00000000-0000-4000-8000-000000000000";
    for (const client of [api.trpc({}), api.trpc({ bearer: org.token })]) {
      await expect(client.webhooks.attempts.query({})).rejects.toMatchObject({ data: { httpStatus: 401 } });
      await expect(client.webhooks.delivery.query({ deliveryId })).rejects.toMatchObject({ data: { httpStatus: 401 } });
      await expect(client.webhooks.overview.query()).rejects.toMatchObject({ data: { httpStatus: 401 } });
    }
  });
});
