"use client";

import type { AuditListItem } from "@clinsign/contracts";
import type { TableColumn } from "@clinsign/ui";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import styles from "./audit-log.module.css";
import { actionLabel, actorWords, changeWords } from "./entry-words";

/** The audit table's columns: when (and the entry's number), what, who, which form, and the metadata. */
export function useAuditColumns(): TableColumn<AuditListItem>[] {
  const { t, locale } = useI18n();
  const a = t.auditLogPage;
  return [
    {
      key: "time",
      header: a.columnTime,
      render: (entry) => (
        <>
          {formatDateTime(entry.createdAt, locale)}
          <div className="cs-hint">{format(a.seq, { seq: String(entry.seq) })}</div>
          {entry.chained ? null : <div className="cs-hint">{a.notChained}</div>}
        </>
      ),
    },
    { key: "action", header: a.columnAction, render: (entry) => <EntryAction entry={entry} a={a} /> },
    {
      key: "actor",
      header: a.columnActor,
      render: (entry) => {
        // A signer by role ("Physician (signing link)"), with the name staff gave them.
        const actor = actorWords(entry, a, t.signing.signerRoles);
        return actor.name ? (
          <div>
            <span className={styles.wrap}>{actor.name}</span>
            <div className="cs-hint">{actor.kind}</div>
          </div>
        ) : (
          actor.kind
        );
      },
    },
    {
      key: "form",
      header: a.columnForm,
      render: (entry) =>
        entry.templateIdentifier ? <code className={`cs-mono ${styles.wrap}`}>{entry.templateIdentifier}</code> : "–",
    },
    { key: "details", header: a.columnDetails, render: (entry) => <EntryDetails entry={entry} a={a} /> },
  ];
}

/** The label in words, the code beside it (what the action filter takes), and what changed. */
function EntryAction({ entry, a }: { entry: AuditListItem; a: Dictionary["auditLogPage"] }) {
  const label = actionLabel(entry, a);
  const changes = changeWords(entry, a);
  return (
    <div>
      {label ? <span>{label}</span> : <code className="cs-mono">{entry.action}</code>}
      {label ? <div className={`cs-hint cs-mono ${styles.wrap}`}>{entry.action}</div> : null}
      {changes.length ? (
        <ul className={styles.changes}>
          {changes.map((line) => (
            <li key={line} className={styles.wrap}>
              {line}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The entry's actor id, address, browser and metadata, folded away under one summary. */
function EntryDetails({ entry, a }: { entry: AuditListItem; a: Dictionary["auditLogPage"] }) {
  return (
    <details className={styles.details}>
      {/* The visible word first, so the name a voice user says is the one they see (WCAG 2.5.3). */}
      <summary>
        {a.metadata}
        <span className="cs-visually-hidden"> {format(a.ofEntry, { seq: String(entry.seq) })}</span>
      </summary>
      <dl className={styles.meta}>
        {entry.actorId ? (
          <>
            <dt>{a.actorId}</dt>
            <dd className="cs-mono">{entry.actorId}</dd>
          </>
        ) : null}
        {entry.ip ? (
          <>
            <dt>{a.address}</dt>
            <dd className="cs-mono">{entry.ip}</dd>
          </>
        ) : null}
        {entry.userAgent ? (
          <>
            <dt>{a.userAgent}</dt>
            <dd>{entry.userAgent}</dd>
          </>
        ) : null}
      </dl>
      <pre className={styles.json}>{JSON.stringify(entry.metadata, null, 2)}</pre>
    </details>
  );
}
