"use client";

import {
  CONFIDENTIALITIES,
  DEFAULT_KDL_TYPE_CODE,
  KDL_DISPLAYS,
  KDL_TYPE_CODES,
  kdlTypeCode,
  type DocumentDetail,
  type DocumentRecordClass,
  type KdlTypeCode,
} from "@clinsign/contracts";
import { Card, RadioCards, SelectField } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { SaveRow, type SaveFeedback } from "../settings/SaveRow";
import { RefusalNotice } from "./RefusalNotice";

/** A KDL type as staff read it: the code system's German name, then its code. */
const kdlName = (code: KdlTypeCode) => `${KDL_DISPLAYS[code]} (${code})`;
/** The default is the empty choice, so it is offered once. */
const KDL_CHOICES = KDL_TYPE_CODES.filter((code) => code !== DEFAULT_KDL_TYPE_CODE);

/**
 * How the hospital files the document's sealed PDFs (issue 34): the KDL type and the
 * confidentiality the FHIR push writes on each DocumentReference. Saved with its own button,
 * apart from the content (it makes no new version).
 */
export function RecordClassCard({ doc, canEdit }: { doc: DocumentDetail; canEdit: boolean }) {
  const d = useI18n().t.documentsPage;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<DocumentRecordClass>(doc.recordClass);
  const [feedback, setFeedback] = useState<SaveFeedback>(null);
  const save = useMutation(
    trpc.documents.setRecordClass.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.documents.pathKey() });
        setFeedback({ tone: "success", text: d.recordClassSaved });
      },
      onError: () => setFeedback({ tone: "danger", text: d.recordClassNotSaved }),
    }),
  );
  const choose = (change: Partial<DocumentRecordClass>) => {
    setChosen({ ...chosen, ...change });
    setFeedback(null);
  };
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    save.mutate({ id: doc.id, ...chosen });
  }
  const kdlValue = chosen.kdlType === DEFAULT_KDL_TYPE_CODE ? "" : (chosen.kdlType ?? "");
  return (
    <Card title={d.recordClassTitle} description={d.recordClassDescription}>
      <form className="cs-stack" onSubmit={onSubmit} aria-label={d.recordClassTitle}>
        <RefusalNotice error={save.error} />
        <SelectField
          label={d.kdlTypeLabel}
          hint={d.kdlTypeHint}
          name="kdlType"
          disabled={!canEdit}
          placeholder={format(d.kdlTypeDefault, { type: kdlName(DEFAULT_KDL_TYPE_CODE) })}
          options={KDL_CHOICES.map((code) => ({ value: code, label: kdlName(code), lang: "de" }))}
          value={kdlValue}
          onChange={(event) => {
            const picked = kdlTypeCode.safeParse(event.currentTarget.value);
            choose({ kdlType: picked.success ? picked.data : null });
          }}
        />
        <RadioCards
          legend={d.confidentialityLabel}
          name="confidentiality"
          value={chosen.confidentiality}
          disabled={!canEdit}
          options={CONFIDENTIALITIES.map((level) => ({
            value: level,
            label: d.confidentiality[level],
            description: d.confidentialityHelp[level],
          }))}
          onChange={(confidentiality) => choose({ confidentiality })}
        />
        {canEdit ? <SaveRow feedback={feedback} busy={save.isPending} saveLabel={d.recordClassSave} /> : null}
      </form>
    </Card>
  );
}
