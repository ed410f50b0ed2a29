import {
  RETENTION_DEFAULTS,
  retentionKinds,
  type RetentionPeriod,
  type RetentionPolicy,
  type RetentionRunStatus,
  type RetentionSettings,
  type UpdateRetentionPolicyInput,
} from "@clinsign/contracts";
import { retentionPolicies, retentionSweeps, sql } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { settingChanges } from "../audit/changes";
import { inTransaction, type OrgContext } from "../context";

/**
 * The organization's retention periods: what it set, each kind it never set following
 * `RETENTION_DEFAULTS` (drafts 30 days; outbox, webhook log, sessions and links 90 days; clinical
 * records kept until the clinic sets a period).
 */
export async function retentionPolicyOf(ctx: OrgContext): Promise<RetentionPolicy> {
  const [row] = await ctx.scope.select(retentionPolicies).limit(1);
  const stored = row?.periods ?? {};
  const policy = { ...RETENTION_DEFAULTS };
  for (const kind of retentionKinds) if (kind in stored) policy[kind] = stored[kind] ?? null;
  return policy;
}

/** The moment before which a record of this period is due: `now` minus days, or minus calendar years. */
export function cutoffOf(period: RetentionPeriod, now: Date): Date {
  const cutoff = new Date(now);
  if (period.unit === "years") cutoff.setUTCFullYear(cutoff.getUTCFullYear() - period.amount);
  else cutoff.setUTCDate(cutoff.getUTCDate() - period.amount);
  return cutoff;
}

/** Sets the periods named (null: keep for good); the others stay. Audited with each period that changed, before and after. */
export async function updateRetentionPolicy(
  ctx: OrgContext,
  input: UpdateRetentionPolicyInput,
): Promise<RetentionSettings> {
  await inTransaction(ctx, async (tx) => {
    const before = await retentionPolicyOf(tx);
    const changes = JSON.stringify(input);
    const userId = ctx.actor.type === "user" ? ctx.actor.id : null;
    // One statement, merged in the database: two admins saving different kinds lose neither.
    await tx.scope.execute(
      (org) => sql`insert into retention_policies (organization_id, periods, updated_at, updated_by_user_id)
        values (${org}, ${changes}::jsonb, now(), ${userId}::uuid)
        on conflict (organization_id) do update set periods = retention_policies.periods || excluded.periods,
          updated_at = now(), updated_by_user_id = excluded.updated_by_user_id`,
    );
    await recordAudit(tx, { action: "retention.policy_updated", metadata: settingChanges(before, input) });
  });
  return retentionSettingsOf(ctx);
}

export async function retentionStatusOf(ctx: OrgContext): Promise<RetentionRunStatus> {
  const [row] = await ctx.scope.select(retentionSweeps).limit(1);
  const finished = row?.runFinishedAt ?? null;
  const started = row?.runStartedAt ?? null;
  const running = !!row?.leaseUntil && row.leaseUntil.getTime() > Date.now();
  return {
    nextRunAt: row?.nextRunAt.toISOString() ?? null,
    running,
    lastStartedAt: started?.toISOString() ?? null,
    lastFinishedAt: finished?.toISOString() ?? null,
    lastDeleted: row && started ? { ...zeroCounts(), ...row.runDeleted } : null,
    lastError: row?.lastError ?? null,
  };
}

export const zeroCounts = () =>
  Object.fromEntries(retentionKinds.map((k) => [k, 0])) as Record<(typeof retentionKinds)[number], number>;

export async function retentionSettingsOf(ctx: OrgContext): Promise<RetentionSettings> {
  return { policy: await retentionPolicyOf(ctx), defaults: RETENTION_DEFAULTS, status: await retentionStatusOf(ctx) };
}
