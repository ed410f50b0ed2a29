"use client";

import type { AuditChainVerdict } from "@clinsign/contracts";
import { Button, Card, LiveRegion, Notice } from "@clinsign/ui";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";

/** Why the chain check failed, in words: which entry, and what that kind of break means. */
function verdictProblem(verdict: AuditChainVerdict, a: Dictionary["auditLogPage"]): string {
  const texts: Record<NonNullable<AuditChainVerdict["problem"]>, string> = {
    chain_broken: a.verifyBroken,
    head_mismatch: a.verifyHeadMismatch,
    slipped_in: a.verifySlippedIn,
    seq_out_of_range: a.verifySeqOutOfRange,
    unchained_overdue: a.verifyUnchainedOverdue,
  };
  return format(texts[verdict.problem ?? "chain_broken"], {
    seq: String(verdict.brokenAt),
    count: String(verdict.entries),
    max: String(verdict.unchained.maxAgeSeconds),
  });
}

/**
 * Verifying the hash chain: the button, and the verdict announced as it arrives (intact or where
 * it broke, entries not yet chained, entries written late, or why the check could not run).
 */
export function ChainVerifyCard({
  verdict,
  failure,
  busy,
  onVerify,
  exportAdminOnly,
}: {
  verdict: AuditChainVerdict | undefined;
  /** Why the check could not run, in words. */
  failure: string | null;
  busy: boolean;
  onVerify: () => void;
  /** The signed-in member may not export: say who may. */
  exportAdminOnly: boolean;
}) {
  const { t } = useI18n();
  const a = t.auditLogPage;
  return (
    <Card
      title={a.verifyTitle}
      description={a.verifyBody}
      actions={
        <Button variant="primary" onClick={onVerify} busy={busy}>
          {a.verify}
        </Button>
      }
    >
      <LiveRegion>
        {verdict?.ok ? <Notice tone="success">{format(a.verifyOk, { count: String(verdict.entries) })}</Notice> : null}
        {verdict && !verdict.ok ? <Notice tone="danger">{verdictProblem(verdict, a)}</Notice> : null}
        {verdict && verdict.problem !== "unchained_overdue" && verdict.unchained.count > 0 ? (
          <Notice tone="info">
            {format(a.verifyUnchainedPending, {
              count: String(verdict.unchained.count),
              age: String(verdict.unchained.oldestAgeSeconds ?? 0),
              max: String(verdict.unchained.maxAgeSeconds),
            })}
          </Notice>
        ) : null}
        {verdict && verdict.lateEntries > 0 ? (
          <Notice tone="warning">{format(a.verifyLateEntries, { count: String(verdict.lateEntries) })}</Notice>
        ) : null}
        {failure ? <Notice tone="danger">{failure}</Notice> : null}
      </LiveRegion>
      {exportAdminOnly ? <p className="cs-hint">{a.exportAdminOnly}</p> : null}
    </Card>
  );
}
