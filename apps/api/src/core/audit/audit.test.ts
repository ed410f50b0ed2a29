import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq, sql } from "@clinsign/db";
import { startTestApi, type TestApi } from "../../testing/harness";
import { createTemplate, updateTemplate } from "../templates/templates";
import { verifyAuditChain } from "./audit";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

describe("the audit hash chain", () => {
  it("verifies an untouched chain and finds the first edited entry", async () => {
    const org = await api.createOrg();
    const t = await createTemplate(org.ctx, { title: "Chain" });
    await updateTemplate(org.ctx, { identifier: t.identifier, title: "Chain 2" });
    await updateTemplate(org.ctx, { identifier: t.identifier, status: "active" });
    const intact = await verifyAuditChain(org.ctx.scope);
    expect(intact).toEqual({ ok: true, entries: 4, brokenAt: null });

    await api.services.db.execute(
      sql`update audit_log set metadata = '{"changed":["description"]}'::jsonb where organization_id = ${org.orgId} and seq = 3`,
    );
    expect(await verifyAuditChain(org.ctx.scope)).toEqual({ ok: false, entries: 2, brokenAt: 3 });
  });

  it("detects a deleted entry in the middle", async () => {
    const org = await api.createOrg();
    const t = await createTemplate(org.ctx, { title: "Gap" });
    await updateTemplate(org.ctx, { identifier: t.identifier, title: "Gap 2" });
    await updateTemplate(org.ctx, { identifier: t.identifier, title: "Gap 3" });
    await api.services.db.delete(auditLog).where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.seq, 2)));
    expect(await verifyAuditChain(org.ctx.scope)).toMatchObject({ ok: false, brokenAt: 2 });
  });

  it("keeps one gapless sequence under concurrent writers", async () => {
    const org = await api.createOrg();
    await Promise.all(Array.from({ length: 20 }, (_, i) => createTemplate(org.ctx, { title: `Parallel ${i}` })));
    expect(await verifyAuditChain(org.ctx.scope)).toEqual({ ok: true, entries: 21, brokenAt: null });
  });
});
