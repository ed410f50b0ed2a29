import type {
  CreateLegalHoldInput,
  LegalHoldItem,
  LegalHoldListInput,
  ListPage,
  PatientSelector,
} from "@clinsign/contracts";
import { eq, isNotNull, isNull, legalHolds, or, sql, type PgColumn, type SQL } from "@clinsign/db";
import { recordAudit } from "../audit/audit";
import { inTransaction, type OrgContext } from "../context";
import { AppError, notFound } from "../errors";
import { page } from "../lists/keyset";
import { inList } from "../patients/record-filters";
import { normalisedSelector } from "../patients/patient-selector";

/**
 * Legal holds: while a hold is active, no record of the patient it names is deleted — not by the
 * retention sweep, not by an erasure. A hold names the patient by any of the identifiers records
 * keep (`PatientSelector`); a record is held when any identifier of an active hold equals the
 * record's own. That errs towards keeping: a hold on a phone number also keeps another patient's
 * records that carry the same number.
 *
 * Two ways to ask:
 * - services (erasure): `isPatientUnderLegalHold(ctx, selector)`;
 * - the retention sweep, in SQL: `heldRecord[kind](alias)`, a condition on one row of a table.
 */

// ---------------------------------------------------------------------------------------------
// Where each record keeps the patient's identifiers. Each function takes the SQL alias of the
// row's table and answers an SQL condition "an active hold of the row's organization names it".

const col = (alias: string, column: string) => sql.raw(`${alias}.${column}`);

/** The last nine digits of a phone number, however it is written ("+49 170 …", "0170-…"). */
const phoneDigits = (phone: SQL) => sql`right(regexp_replace(${phone}, '[^0-9]', '', 'g'), 9)`;

/** True when an active hold of organization `org` names any of `ids` (null ids never match). */
function holdNaming(org: SQL, ids: { patientId?: SQL; rnummer?: SQL; phone?: SQL }): SQL {
  const names: SQL[] = [];
  if (ids.patientId) names.push(sql`h.patient_id = ${ids.patientId}`);
  if (ids.rnummer) names.push(sql`h.rnummer = ${ids.rnummer}`);
  // Records keep phones as they came (E.164 mostly; a form's own `phone` as typed): compared by
  // their last nine digits, which errs towards keeping.
  if (ids.phone) names.push(sql`${phoneDigits(ids.phone)} = ${phoneDigits(sql.raw("h.phone"))}`);
  return sql`exists (select 1 from legal_holds h where h.organization_id = ${org} and h.released_at is null and (${sql.join(names, sql` or `)}))`;
}

const formRequestHeld = (a: string) =>
  holdNaming(col(a, "organization_id"), { rnummer: col(a, "rnummer"), phone: col(a, "phone") });

const embedSessionHeld = (a: string) =>
  holdNaming(col(a, "organization_id"), {
    rnummer: sql`${col(a, "config")}->>'rnummer'`,
    phone: sql`${col(a, "config")}->>'phone'`,
  });

const signatureRequestHeld = (a: string) =>
  holdNaming(col(a, "organization_id"), { patientId: col(a, "patient_id"), phone: col(a, "patient_phone") });

/** A submission: its own case number and phone, or those of the SMS form request it answered. */
const submissionHeld = (a: string) =>
  sql`(${holdNaming(col(a, "organization_id"), { rnummer: col(a, "rnummer"), phone: col(a, "phone") })}
    or exists (select 1 from form_requests sfr where sfr.organization_id = ${col(a, "organization_id")}
      and sfr.id = ${col(a, "form_request_id")} and ${formRequestHeld("sfr")}))`;

/** Drafts are keyed by draftKey: an SMS form request's own (`form-request:<id>`), or an embed session's config. */
const draftHeld = (a: string) =>
  sql`(exists (select 1 from form_requests dfr where dfr.organization_id = ${col(a, "organization_id")}
      and ${col(a, "draft_key")} = 'form-request:' || dfr.id::text and ${formRequestHeld("dfr")})
    or exists (select 1 from form_sessions dfs where dfs.organization_id = ${col(a, "organization_id")}
      and dfs.template_identifier = ${col(a, "template_identifier")}
      and dfs.config->>'draftKey' = ${col(a, "draft_key")} and ${embedSessionHeld("dfs")}))`;

/** An outbox message: sent to a held number, or part of a held SMS form request. */
const messageHeld = (a: string) =>
  sql`(exists (select 1 from legal_holds h where h.organization_id = ${col(a, "organization_id")}
      and h.released_at is null and h.phone is not null and ${col(a, "recipients")} @> jsonb_build_array(h.phone))
    or exists (select 1 from form_requests mfr where mfr.organization_id = ${col(a, "organization_id")}
      and mfr.id = ${col(a, "form_request_id")} and ${formRequestHeld("mfr")}))`;

/**
 * A webhook delivery's body is the exact JSON that was sent (any shape the clinic chose): held
 * when any active hold's identifier appears in it as a JSON string.
 */
const webhookDeliveryHeld = (a: string) =>
  sql`exists (select 1 from legal_holds h where h.organization_id = ${col(a, "organization_id")} and h.released_at is null
    and (strpos(${col(a, "body")}, to_jsonb(h.patient_id)::text) > 0 or strpos(${col(a, "body")}, to_jsonb(h.rnummer)::text) > 0
      or strpos(${col(a, "body")}, to_jsonb(h.phone)::text) > 0))`;

/**
 * An uploaded file: held through the embed session or SMS form request that uploaded it, or a
 * held submission that names it (`values` hold `[{path: storageKey, …}]`).
 */
const formUploadHeld = (a: string) =>
  sql`(exists (select 1 from form_sessions ufs where ufs.organization_id = ${col(a, "organization_id")}
      and ${col(a, "uploader_key")} = 'session:' || ufs.id::text and ${embedSessionHeld("ufs")})
    or exists (select 1 from form_requests ufr where ufr.organization_id = ${col(a, "organization_id")}
      and ${col(a, "uploader_key")} = 'portal:' || ufr.id::text and ${formRequestHeld("ufr")})
    or exists (select 1 from submissions us, jsonb_each(us.values) as answer(key, value)
      where us.organization_id = ${col(a, "organization_id")} and us.template_identifier = ${col(a, "template_identifier")}
        and jsonb_typeof(answer.value) = 'array'
        and answer.value @> jsonb_build_array(jsonb_build_object('path', ${col(a, "storage_key")}))
        and ${submissionHeld("us")}))`;

/** The kinds of patient records, each with its "is this row held?" condition. */
export const heldRecord = {
  signatureRequests: signatureRequestHeld,
  formRequests: formRequestHeld,
  embedSessions: embedSessionHeld,
  drafts: draftHeld,
  submissions: submissionHeld,
  formUploads: formUploadHeld,
  messages: messageHeld,
  webhookDeliveries: webhookDeliveryHeld,
} satisfies Record<string, (alias: string) => SQL>;

// ---------------------------------------------------------------------------------------------

/**
 * "Is any record of this patient under a hold?": an active hold names one of the selector's
 * identifiers, or a record the selector finds is held through another identifier it carries (a
 * hold on `patientId` keeps the signature request found by its phone number). The selector's phone
 * is compared as given: pass it normalised (`normalisedSelector`, as erasure does).
 */
export async function isPatientUnderLegalHold(ctx: OrgContext, selector: PatientSelector): Promise<boolean> {
  const pid = selector.patientId ?? null;
  const rn = selector.rnummer ?? null;
  const ph = selector.phone ?? null;
  const [row] = await ctx.scope.execute<{ held: boolean }>(
    (org) => sql`select (
      exists (select 1 from legal_holds h where h.organization_id = ${org} and h.released_at is null
        and (h.patient_id = ${pid}::text or h.rnummer = ${rn}::text or h.phone = ${ph}::text))
      or exists (select 1 from signature_requests sr where sr.organization_id = ${org}
        and (sr.patient_id = ${pid}::text or sr.patient_phone = ${ph}::text) and ${signatureRequestHeld("sr")})
      or exists (select 1 from form_requests fr where fr.organization_id = ${org}
        and (fr.rnummer = ${rn}::text or fr.phone = ${ph}::text) and ${formRequestHeld("fr")})
      or exists (select 1 from submissions s where s.organization_id = ${org}
        and (s.rnummer = ${rn}::text or s.phone = ${ph}::text) and ${submissionHeld("s")})
      or exists (select 1 from form_sessions fs where fs.organization_id = ${org}
        and (fs.config->>'rnummer' = ${rn}::text or fs.config->>'phone' = ${ph}::text) and ${embedSessionHeld("fs")})
    ) as held`,
  );
  return row?.held === true;
}

/** Throws 409 `conflict` (reason `legal_hold`) when the patient is under a hold: for deleting services. */
export async function assertNoLegalHold(ctx: OrgContext, selector: PatientSelector): Promise<void> {
  if (await isPatientUnderLegalHold(ctx, selector))
    throw new AppError("conflict", "a legal hold keeps this patient's records", { reason: "legal_hold" });
}

/**
 * A patient's erasure (core/patients/erasure.ts) blanks the released holds that named them: the
 * identifiers go, the reason (staff's words, which may describe the patient) becomes empty, and the
 * hold's id, dates and staff stay, with `erased_at` set. `terms` are the patient's values as the
 * finder read them (`PatientRecords.terms`: the phone in E.164 too). Active holds are never touched
 * (an erasure is refused while one names the patient). Returns how many holds were blanked.
 */
export async function eraseReleasedLegalHolds(ctx: OrgContext, terms: readonly string[]): Promise<number> {
  if (terms.length === 0) return 0;
  const rows = await ctx.scope
    .update(
      legalHolds,
      { patientId: null, rnummer: null, phone: null, reason: "", erasedAt: new Date() },
      isNotNull(legalHolds.releasedAt),
      or(
        inList(legalHolds.patientId, terms, "text"),
        inList(legalHolds.rnummer, terms, "text"),
        inList(legalHolds.phone, terms, "text"),
      ),
    )
    .returning({ id: legalHolds.id });
  return rows.length;
}

const staffUserId = (ctx: OrgContext) => (ctx.actor.type === "user" ? ctx.actor.id : null);

/**
 * Places a hold, its phone stored in E.164 as records keep it (a national number is read in the
 * organization's country; 400 when it is no number). The audit entry names the hold, never the patient.
 */
export async function createLegalHold(ctx: OrgContext, input: CreateLegalHoldInput): Promise<LegalHoldItem> {
  const selector = await normalisedSelector(ctx, input.selector);
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .insert(legalHolds, {
        patientId: selector.patientId ?? null,
        rnummer: selector.rnummer ?? null,
        phone: selector.phone ?? null,
        reason: input.reason,
        createdByUserId: staffUserId(ctx),
      })
      .returning({ id: legalHolds.id });
    await recordAudit(tx, { action: "legal_hold.created", metadata: { legalHoldId: row!.id } });
    return getLegalHold(tx, row!.id);
  });
}

/** Releases a hold (idempotent: releasing a released hold answers it unchanged, without a new entry). */
export async function releaseLegalHold(ctx: OrgContext, input: { id: string }): Promise<LegalHoldItem> {
  return inTransaction(ctx, async (tx) => {
    const [row] = await tx.scope
      .update(
        legalHolds,
        { releasedAt: new Date(), releasedByUserId: staffUserId(ctx) },
        eq(legalHolds.id, input.id),
        isNull(legalHolds.releasedAt),
      )
      .returning({ id: legalHolds.id });
    if (row) await recordAudit(tx, { action: "legal_hold.released", metadata: { legalHoldId: row.id } });
    return getLegalHold(tx, input.id);
  });
}

/** A staff member's name (else e-mail), for the list. */
const staffName = (userId: PgColumn) =>
  sql<string | null>`(select coalesce(u.name, u.email) from users u where u.id = ${userId})`;

function holdQuery(ctx: OrgContext) {
  return ctx.scope
    .query({
      id: legalHolds.id,
      patientId: legalHolds.patientId,
      rnummer: legalHolds.rnummer,
      phone: legalHolds.phone,
      reason: legalHolds.reason,
      createdAt: legalHolds.createdAt,
      releasedAt: legalHolds.releasedAt,
      createdBy: staffName(legalHolds.createdByUserId),
      releasedBy: staffName(legalHolds.releasedByUserId),
    })
    .from(legalHolds);
}

type HoldRow = Awaited<ReturnType<typeof holdQuery>>[number];

function toItem(row: HoldRow): LegalHoldItem {
  return {
    id: row.id,
    patientId: row.patientId,
    rnummer: row.rnummer,
    phone: row.phone,
    reason: row.reason,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    releasedAt: row.releasedAt?.toISOString() ?? null,
    releasedBy: row.releasedBy,
  };
}

export async function getLegalHold(ctx: OrgContext, id: string): Promise<LegalHoldItem> {
  const [row] = await holdQuery(ctx).where(eq(legalHolds.id, id)).limit(1);
  if (!row) throw notFound("legal hold", { field: "id" });
  return toItem(row);
}

/** The organization's holds (active ones by default), newest first: the one list contract. */
export async function listLegalHolds(ctx: OrgContext, input: LegalHoldListInput): Promise<ListPage<LegalHoldItem>> {
  const query = holdQuery(ctx).where(input.status === "active" ? isNull(legalHolds.releasedAt) : undefined);
  return page(query, [legalHolds.createdAt, legalHolds.id], input, toItem);
}
