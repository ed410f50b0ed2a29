"use client";

import type { FhirDelivery } from "@clinsign/contracts";
import { Badge, Button, type BadgeTone, type TableColumn } from "@clinsign/ui";
import Link from "next/link";
import type { ClinicTime } from "../../components/admin-shell/clinic-time";
import lists from "../../components/lists/lists.module.css";
import { format, type Dictionary } from "../../i18n";
import styles from "./fhir-push.module.css";

type Texts = Dictionary["fhirPush"];

const statusTone: Record<FhirDelivery["status"], BadgeTone> = {
  pending: "warning",
  delivered: "success",
  failed: "danger",
};

/** Where a delivery's record lives in the console. */
const sourcePath = (row: FhirDelivery) =>
  row.sourceKind === "signature_request" ? `/signature-requests/${row.sourceId}` : `/submissions/${row.sourceId}`;

/** "Submission 3f1c8f5e": the record's kind and the start of its id, enough to tell rows apart. */
export const sourceName = (row: FhirDelivery, f: Texts) =>
  format(f.sourceLabel, { kind: f.sources[row.sourceKind], id: row.sourceId.slice(0, 8) });

/** A delivery that has not arrived may be sent again; one that arrived is there already. */
export const canSendAgain = (row: FhirDelivery) => row.status !== "delivered";

/** Up to this many characters of a server's answer show in the row; the rest behind "Full answer". */
const ANSWER_PREVIEW = 120;

/** The server's last answer: its status code (or none) and what it said, long ones folded. */
function LastAnswer({ row, f }: { row: FhirDelivery; f: Texts }) {
  if (row.attempts === 0 && row.lastStatusCode === null && !row.lastError)
    return <span className="cs-hint">{f.noAnswer}</span>;
  const code = row.lastStatusCode !== null ? `HTTP ${row.lastStatusCode}` : f.noResponse;
  const error = row.lastError ?? "";
  const long = error.length > ANSWER_PREVIEW;
  return (
    <div className={`${lists.stacked} ${styles.answer}`}>
      <span className="cs-mono">{code}</span>
      {error && !long ? <span className={lists.error}>{error}</span> : null}
      {long ? (
        <details>
          <summary>
            <span className={lists.error}>{`${error.slice(0, ANSWER_PREVIEW).trimEnd()}…`}</span> {f.fullAnswer}
          </summary>
          <p className={`${lists.error} ${styles.fullAnswer}`}>{error}</p>
        </details>
      ) : null}
    </div>
  );
}

/**
 * The log's columns: when (on the clinic's clock), what was sent (linked), its status, attempts,
 * the server's last answer, and "Send again" for what has not arrived.
 */
export function deliveryColumns({
  f,
  clinic,
  sending,
  onSendAgain,
}: {
  f: Texts;
  clinic: ClinicTime;
  /** The id of the delivery being queued again, if any. */
  sending: string | null;
  onSendAgain(row: FhirDelivery): void;
}): TableColumn<FhirDelivery>[] {
  return [
    { key: "created", header: f.columnCreated, render: (row) => clinic.dateTime(row.createdAt) },
    {
      key: "source",
      header: f.columnSource,
      render: (row) => (
        <Link href={sourcePath(row)} className={styles.sourceLink}>
          {sourceName(row, f)}
        </Link>
      ),
    },
    {
      key: "status",
      header: f.columnStatus,
      render: (row) => <Badge tone={statusTone[row.status]}>{f.statuses[row.status]}</Badge>,
    },
    { key: "attempts", header: f.columnAttempts, render: (row) => row.attempts },
    { key: "answer", header: f.columnAnswer, render: (row) => <LastAnswer row={row} f={f} /> },
    {
      key: "action",
      header: f.columnAction,
      end: true,
      render: (row) =>
        canSendAgain(row) ? (
          <Button
            size="small"
            busy={sending === row.id}
            aria-label={format(f.sendAgainLabel, { source: sourceName(row, f) })}
            onClick={() => onSendAgain(row)}
          >
            {f.sendAgain}
          </Button>
        ) : null,
    },
  ];
}
