"use client";

import { MAX_SIGNATURE_REMINDER_DAYS, type DocumentSummary } from "@clinsign/contracts";
import { SelectField, TextField } from "@clinsign/ui";
import type { ChangeEvent } from "react";
import { useFieldMarks } from "../../components/field-marks";
import { useI18n } from "../../i18n/I18nProvider";
import { dayFromNowIn } from "../../lib/dates";
import type { Draft } from "./new-request-draft";
import styles from "./signature-requests.module.css";

/** Patient, institution and orderer are the clinic's own identifiers: typed, never autofilled. */
const IDENTIFIER_INPUT = { required: true, maxLength: 200, autoComplete: "off" } as const;

/** The institution select's choice that shows a text field for an institution not used before. */
const OTHER_INSTITUTION = "\u0000other";

/** What an input of the draft takes: its value, its change, and the server's message on its field. */
export interface DraftBinding {
  value: string;
  onChange(event: ChangeEvent<HTMLInputElement | HTMLSelectElement>): void;
  error: string | undefined;
}

interface InstitutionFieldsProps {
  /** The organization's institutions used before. */
  known: readonly { institutionId: string }[];
  /** "Another" is chosen in the select. */
  other: boolean;
  /** The text field for a new institution id shows ("another", or none known). */
  typing: boolean;
  bind(key: keyof Draft): DraftBinding;
  /** An institution from the select, or null for "another". */
  onChoose(institutionId: string | null): void;
}

/** The institution: a select of the known ones with "another", and a text field for a new id. */
function InstitutionFields({ known, other, typing, bind, onChoose }: InstitutionFieldsProps) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const { marks } = useFieldMarks();
  const institutionId = bind("institution_id");
  return (
    <>
      {known.length > 0 ? (
        <SelectField
          id="new-request-institution"
          label={s.institution}
          hint={other ? undefined : s.institutionKnownHint}
          hintAfter
          error={other ? undefined : institutionId.error}
          placeholder={s.chooseInstitution}
          options={[
            ...known.map((item) => ({ value: item.institutionId })),
            { value: OTHER_INSTITUTION, label: s.otherInstitution },
          ]}
          value={other ? OTHER_INSTITUTION : institutionId.value}
          onChange={(e) => onChoose(e.target.value === OTHER_INSTITUTION ? null : e.target.value)}
          required
          marks={marks}
        />
      ) : null}
      {typing ? (
        <TextField
          label={s.institutionId}
          hint={s.institutionNewHint}
          marks={marks}
          {...IDENTIFIER_INPUT}
          autoFocus={other}
          {...institutionId}
        />
      ) : null}
    </>
  );
}

interface RequestDetailsFieldsProps {
  bind(key: keyof Draft): DraftBinding;
  /** The active documents, to choose from. */
  documents: readonly DocumentSummary[];
  documentsPending: boolean;
  institution: Omit<InstitutionFieldsProps, "bind">;
  /** The clinic's time zone: the expiry is one of its days. */
  timeZone: string;
}

/** The request's own fields: patient, document, institution, expiry, orderer, reminder phone and days. */
export function RequestDetailsFields({
  bind,
  documents,
  documentsPending,
  institution,
  timeZone,
}: RequestDetailsFieldsProps) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const { marks } = useFieldMarks();
  return (
    <div className={styles.formGrid}>
      <TextField
        label={s.patientId}
        hint={s.patientIdHint}
        marks={marks}
        {...IDENTIFIER_INPUT}
        {...bind("patient_id")}
      />
      <SelectField
        id="new-request-document"
        label={s.document}
        placeholder={documentsPending ? t.common.loading : s.chooseDocument}
        options={documents.map((doc) => ({
          value: doc.id,
          label: `${doc.title || doc.name} (v${doc.currentVersion})`,
        }))}
        required
        marks={marks}
        {...bind("document_id")}
      />
      <InstitutionFields {...institution} bind={bind} />
      <TextField
        label={s.expiry}
        hint={s.expiryHint}
        type="date"
        min={dayFromNowIn(0, timeZone)}
        required
        marks={marks}
        {...bind("expiry")}
      />
      <TextField label={s.orderBy} hint={s.orderByHint} marks={marks} {...IDENTIFIER_INPUT} {...bind("order_by")} />
      <TextField
        label={s.patientPhone}
        hint={s.patientPhoneHint}
        type="tel"
        maxLength={40}
        autoComplete="off"
        {...bind("patient_phone")}
      />
      <TextField
        label={s.reminderDays}
        hint={s.reminderDaysHint}
        type="number"
        inputMode="numeric"
        min={0}
        max={MAX_SIGNATURE_REMINDER_DAYS}
        step={1}
        {...bind("reminder_days")}
      />
    </div>
  );
}
