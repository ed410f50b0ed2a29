"use client";

import {
  MAX_SIGNATURE_REMINDER_DAYS,
  type CreatedSigner,
  type CreateSignatureRequestInput,
  type SigningOrder,
} from "@clinsign/contracts";
import { Button, Dialog, LiveRegion, Notice, SelectField, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState, type ChangeEvent, type FormEvent } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { fieldMessage } from "../../trpc/field-errors";
import { dayFromNowIn, endOfDayIn } from "../../lib/dates";
import { useFieldMarks } from "../../components/field-marks";
import styles from "./signature-requests.module.css";
import { useCan, useSession } from "../../components/admin-shell/SessionContext";
import { ErrorNotice } from "../../components/ErrorNotice";
import { defaultChoice, rolesOfFields, signersOf, type SignerChoice } from "./signers";
import { HandOver } from "./HandOver";
import { SignersFieldset } from "./SignersFieldset";
import { DocumentsByLanguageFieldset } from "./DocumentsByLanguageFieldset";
import type { PatientLanguage } from "@clinsign/contracts/language-list";

/** How long a new request stays open unless staff choose otherwise. */
const DEFAULT_EXPIRY_DAYS = 14;
const FIELDS = [
  "patient_id",
  "document_id",
  "institution_id",
  "expiration_date",
  "order_by",
  "patient_phone",
  "reminder_days",
  "signers",
  "signing_order",
  "documents_by_language",
] as const;

/** Patient, institution and orderer are the clinic's own identifiers: typed, never autofilled. */
const IDENTIFIER_INPUT = { required: true, maxLength: 200, autoComplete: "off" } as const;

/** The institution select's choice that shows a text field for an institution not used before. */
const OTHER_INSTITUTION = "\u0000other";

const emptyDraft = (timeZone: string, documentId = "") => ({
  patient_id: "",
  document_id: documentId,
  institution_id: "",
  expiry: dayFromNowIn(DEFAULT_EXPIRY_DAYS, timeZone),
  order_by: "",
  /** Optional: the patient's mobile number for reminders, and days until the reminder (empty: the organization's). */
  patient_phone: "",
  reminder_days: "",
});
type Draft = ReturnType<typeof emptyDraft>;

interface Created {
  id: string;
  link: string;
  expiresAt: string;
  /** Several signers: each one, with the link to hand to those who sign by link. */
  signers?: CreatedSigner[];
  /** The patient's mobile number as entered, for sending the link by SMS. */
  patientPhone: string | null;
}

/**
 * The create form (A1 through the staff session), then the hand-over of the new link. `documentId`
 * preselects the document (the dialog opened from a document's page).
 */
function NewRequestForm({ onCreated, documentId }: { onCreated(created: Created): void; documentId?: string }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const staffSession = useSession();
  // Expiry days are the clinic's, like every date in the console.
  const { timeZone } = staffSession.organization;
  const { marks, note: requiredNote } = useFieldMarks();
  const [draft, setDraft] = useState<Draft>(() => emptyDraft(timeZone, documentId));
  // Known institutions are offered in a select; "another" opens a text field for a new id.
  const [otherInstitution, setOtherInstitution] = useState(false);
  const documents = useQuery(trpc.documents.list.queryOptions({ limit: 500 }));
  const active = (documents.data ?? []).filter((doc) => doc.availability === "active");
  const institutions = useQuery(trpc.signatures.institutions.queryOptions({ limit: 200 }));
  const knownInstitutions = institutions.data?.items ?? [];
  const typingInstitution = otherInstitution || (institutions.isSuccess && knownInstitutions.length === 0);

  // The chosen document's roles (its current version's fields): several roles ask who signs each.
  const me = staffSession.user.id;
  const chosen = useQuery({
    ...trpc.documents.detail.queryOptions({ id: draft.document_id }),
    enabled: draft.document_id !== "",
  });
  const roles = useMemo(() => {
    const doc = chosen.data;
    const current = doc?.versions.find((version) => version.version === doc.currentVersion);
    return current ? rolesOfFields(current.fields) : [];
  }, [chosen.data]);
  const several = roles.length > 1;
  const [order, setOrder] = useState<SigningOrder>("sequential");
  // Issue 19: the same consent in other languages (one signer only), language → document id.
  const [byLanguage, setByLanguage] = useState<Partial<Record<PatientLanguage, string>>>({});
  const languageDocuments = Object.fromEntries(
    Object.entries(byLanguage).filter(([, id]) => id && id !== draft.document_id),
  ) as Partial<Record<PatientLanguage, string>>;
  const [choices, setChoices] = useState<SignerChoice[]>([]);
  const rolesKey = roles.map((r) => r.role).join("\u0000");
  const [choicesFor, setChoicesFor] = useState("");
  if (rolesKey !== choicesFor) {
    // Another document: start again from its roles, in the document's order.
    setChoicesFor(rolesKey);
    setChoices(roles.map((r) => defaultChoice(r.role, me)));
  }

  const create = useMutation(
    trpc.signatures.create.mutationOptions({
      onSuccess: (result) => {
        void queryClient.invalidateQueries({ queryKey: trpc.signatures.list.pathKey() });
        // The institution just used is offered next time.
        void queryClient.invalidateQueries({ queryKey: trpc.signatures.institutions.pathKey() });
        onCreated({
          id: result.signature_id,
          link: result.signing_link,
          expiresAt: result.expiration_date,
          // The answer names every signer only for requests with several (absent otherwise).
          signers: result.signers,
          patientPhone: draft.patient_phone.trim() || null,
        });
      },
    }),
  );
  const apiError = create.error ? readApiError(create.error) : null;
  const message = (key: (typeof FIELDS)[number]) => fieldMessage(apiError, key, t);
  const set = (key: keyof Draft, value: string) => setDraft((current) => ({ ...current, [key]: value }));
  /** What an input of the draft takes: its value, its change, and the server's message on its field. */
  const bind = (key: keyof Draft, field: (typeof FIELDS)[number]) => ({
    value: draft[key],
    onChange: (e: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => set(key, e.target.value),
    error: message(field),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const input: CreateSignatureRequestInput = {
      patient_id: draft.patient_id,
      document_id: draft.document_id,
      institution_id: draft.institution_id,
      // An unparsable day goes to the server as typed, which names the problem on the field.
      expiration_date: endOfDayIn(draft.expiry, timeZone) ?? draft.expiry,
      order_by: draft.order_by,
      ...(draft.patient_phone.trim() && { patient_phone: draft.patient_phone.trim() }),
      // Anything but digits goes out as NaN (null on the wire), which the server refuses on the field.
      ...(draft.reminder_days.trim() && {
        reminder_days: /^\d{1,3}$/.test(draft.reminder_days.trim()) ? Number(draft.reminder_days.trim()) : NaN,
      }),
      ...(several && { signers: signersOf(choices), signing_order: order }),
      ...(!several && Object.keys(languageDocuments).length > 0 && { documents_by_language: languageDocuments }),
    };
    create.mutate(input);
  }

  return (
    <form className="cs-stack" onSubmit={submit} aria-label={s.newTitle} noValidate>
      {documents.data && active.length === 0 ? <Notice tone="info">{s.noActiveDocuments}</Notice> : null}
      <p className="cs-hint">{requiredNote}</p>
      <div className={styles.formGrid}>
        <TextField
          label={s.patientId}
          hint={s.patientIdHint}
          marks={marks}
          {...IDENTIFIER_INPUT}
          {...bind("patient_id", "patient_id")}
        />
        <SelectField
          id="new-request-document"
          label={s.document}
          placeholder={documents.isPending ? t.common.loading : s.chooseDocument}
          options={active.map((doc) => ({ value: doc.id, label: `${doc.title || doc.name} (v${doc.currentVersion})` }))}
          required
          marks={marks}
          {...bind("document_id", "document_id")}
        />
        {knownInstitutions.length > 0 ? (
          <SelectField
            id="new-request-institution"
            label={s.institution}
            hint={otherInstitution ? undefined : s.institutionKnownHint}
            hintAfter
            error={otherInstitution ? undefined : message("institution_id")}
            placeholder={s.chooseInstitution}
            options={[
              ...knownInstitutions.map((item) => ({ value: item.institutionId })),
              { value: OTHER_INSTITUTION, label: s.otherInstitution },
            ]}
            value={otherInstitution ? OTHER_INSTITUTION : draft.institution_id}
            onChange={(e) => {
              const other = e.target.value === OTHER_INSTITUTION;
              setOtherInstitution(other);
              set("institution_id", other ? "" : e.target.value);
            }}
            required
            marks={marks}
          />
        ) : null}
        {typingInstitution ? (
          <TextField
            label={s.institutionId}
            hint={s.institutionNewHint}
            marks={marks}
            {...IDENTIFIER_INPUT}
            autoFocus={otherInstitution}
            {...bind("institution_id", "institution_id")}
          />
        ) : null}
        <TextField
          label={s.expiry}
          hint={s.expiryHint}
          type="date"
          min={dayFromNowIn(0, timeZone)}
          required
          marks={marks}
          {...bind("expiry", "expiration_date")}
        />
        <TextField
          label={s.orderBy}
          hint={s.orderByHint}
          marks={marks}
          {...IDENTIFIER_INPUT}
          {...bind("order_by", "order_by")}
        />
        <TextField
          label={s.patientPhone}
          hint={s.patientPhoneHint}
          type="tel"
          maxLength={40}
          autoComplete="off"
          {...bind("patient_phone", "patient_phone")}
        />
        <TextField
          label={s.reminderDays}
          hint={s.reminderDaysHint}
          type="number"
          inputMode="numeric"
          min={0}
          max={MAX_SIGNATURE_REMINDER_DAYS}
          step={1}
          {...bind("reminder_days", "reminder_days")}
        />
      </div>
      {several ? (
        <SignersFieldset
          roles={roles}
          choices={choices}
          order={order}
          onChoices={setChoices}
          onOrder={setOrder}
          error={message("signers") ?? message("signing_order")}
        />
      ) : null}
      {draft.document_id && !several && chosen.isSuccess ? (
        <DocumentsByLanguageFieldset
          documents={active.filter((doc) => doc.id !== draft.document_id)}
          value={byLanguage}
          onChange={setByLanguage}
          error={(language) =>
            message("documents_by_language") ?? fieldMessage(apiError, `documents_by_language.${language}`, t)
          }
        />
      ) : null}
      <LiveRegion>
        <ErrorNotice error={create.error} fields={FIELDS} />
      </LiveRegion>
      <div>
        <Button type="submit" variant="primary" busy={create.isPending}>
          {s.create}
        </Button>
      </div>
    </form>
  );
}

/**
 * "New request": a dialog with the form, then the link to hand over (copy or QR code). On a
 * document's page it opens there, with that document chosen.
 */
export function NewRequestDialog({ documentId, label }: { documentId?: string; label?: string } = {}) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const [open, setOpen] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  // A new form each time the dialog opens (and after "Another request").
  const [formKey, setFormKey] = useState(0);
  const mayCreate = useCan()("signatures.create");

  function close() {
    setOpen(false);
    setCreated(null);
    setFormKey((key) => key + 1);
  }

  if (!mayCreate) return null;
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        {label ?? s.newRequest}
      </Button>
      <Dialog
        open={open}
        onClose={close}
        title={created ? s.createdTitle : s.newTitle}
        description={created ? s.createdDescription : s.newDescription}
        closeLabel={t.common.close}
        footer={
          created ? (
            <>
              <Link className="cs-button cs-button--secondary" href={`/signature-requests/${created.id}`}>
                {s.openRequest}
              </Link>
              <Button
                onClick={() => {
                  setCreated(null);
                  setFormKey((key) => key + 1);
                }}
              >
                {s.another}
              </Button>
              <Button variant="primary" onClick={close}>
                {t.common.done}
              </Button>
            </>
          ) : undefined
        }
      >
        {created ? (
          <HandOver
            signatureRequestId={created.id}
            link={created.link}
            expiresAt={created.expiresAt}
            signers={created.signers}
            patientPhone={created.patientPhone}
          />
        ) : (
          <NewRequestForm key={formKey} onCreated={setCreated} documentId={documentId} />
        )}
      </Dialog>
    </>
  );
}
