"use client";

import type { CreatedSigner } from "@clinsign/contracts";
import { Button, Dialog, LiveRegion, Notice } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useReducer, useState, type FormEvent } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { fieldMessage } from "../../trpc/field-errors";
import { useFieldMarks } from "../../components/field-marks";
import { useCan, useSession } from "../../components/admin-shell/SessionContext";
import { ErrorNotice } from "../../components/ErrorNotice";
import { defaultChoice, rolesOfFields } from "./signers";
import { HandOver } from "./HandOver";
import { SignersFieldset } from "./SignersFieldset";
import { DocumentsByLanguageFieldset } from "./DocumentsByLanguageFieldset";
import {
  fieldOfDraft,
  initialNewRequest,
  newRequest,
  REQUEST_FIELDS,
  requestInputOf,
  type Draft,
  type RequestField,
} from "./new-request-draft";
import { RequestDetailsFields, type DraftBinding } from "./RequestDetailsFields";

interface Created {
  id: string;
  link: string;
  expiresAt: string;
  /** Several signers: each one, with the link to hand to those who sign by link. */
  signers?: CreatedSigner[];
  /** The patient's mobile number as entered, for sending the link by SMS. */
  patientPhone: string | null;
}

/** The chosen document's roles (its current version's fields), once it is loaded. */
function useDocumentRoles(documentId: string) {
  const trpc = useTRPC();
  const chosen = useQuery({ ...trpc.documents.detail.queryOptions({ id: documentId }), enabled: documentId !== "" });
  const roles = useMemo(() => {
    const doc = chosen.data;
    const current = doc?.versions.find((version) => version.version === doc.currentVersion);
    return current ? rolesOfFields(current.fields) : [];
  }, [chosen.data]);
  // Another document, other roles: the key the signer choices are kept for.
  return { roles, rolesKey: roles.map((r) => r.role).join("\u0000"), loaded: chosen.isSuccess };
}

/** What the form offers: the active documents, the institutions used before. */
function useRequestOptions() {
  const trpc = useTRPC();
  const documents = useQuery(trpc.documents.list.queryOptions({ limit: 500 }));
  const institutions = useQuery(trpc.signatures.institutions.queryOptions({ limit: 200 }));
  return {
    documents,
    active: (documents.data ?? []).filter((doc) => doc.availability === "active"),
    knownInstitutions: institutions.data?.items ?? [],
    institutionsLoaded: institutions.isSuccess,
  };
}

/** A1 through the staff session; the list and the known institutions are asked again after it. */
function useCreateRequest(onCreated: (created: Omit<Created, "patientPhone">) => void) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
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
        });
      },
    }),
  );
}

/**
 * The create form (A1 through the staff session), then the hand-over of the new link. `documentId`
 * preselects the document (the dialog opened from a document's page).
 */
function NewRequestForm({ onCreated, documentId }: { onCreated(created: Created): void; documentId?: string }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const staffSession = useSession();
  // Expiry days are the clinic's, like every date in the console.
  const { timeZone } = staffSession.organization;
  const { note: requiredNote } = useFieldMarks();
  const [state, dispatch] = useReducer(newRequest, undefined, () => initialNewRequest(timeZone, documentId));
  const { draft } = state;
  const { documents, active, knownInstitutions, institutionsLoaded } = useRequestOptions();

  // Several roles ask who signs each, the signed-in member for the physician's by default.
  const chosen = useDocumentRoles(draft.document_id);
  const several = chosen.roles.length > 1;
  if (chosen.rolesKey !== state.choicesFor) {
    const choices = chosen.roles.map((r) => defaultChoice(r.role, staffSession.user.id));
    dispatch({ type: "rolesChanged", rolesKey: chosen.rolesKey, choices });
  }

  const create = useCreateRequest((created) =>
    onCreated({ ...created, patientPhone: draft.patient_phone.trim() || null }),
  );
  const apiError = create.error ? readApiError(create.error) : null;
  const message = (field: RequestField | `documents_by_language.${string}`) => fieldMessage(apiError, field, t);
  const bind = (key: keyof Draft): DraftBinding => ({
    value: draft[key],
    onChange: (e) => dispatch({ type: "typed", key, value: e.target.value }),
    error: message(fieldOfDraft[key]),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(requestInputOf(state, timeZone, several));
  }

  return (
    <form className="cs-stack" onSubmit={submit} aria-label={s.newTitle} noValidate>
      {documents.data && active.length === 0 ? <Notice tone="info">{s.noActiveDocuments}</Notice> : null}
      <p className="cs-hint">{requiredNote}</p>
      <RequestDetailsFields
        bind={bind}
        documents={active}
        documentsPending={documents.isPending}
        institution={{
          known: knownInstitutions,
          other: state.otherInstitution,
          typing: state.otherInstitution || (institutionsLoaded && knownInstitutions.length === 0),
          onChoose: (institutionId) => dispatch({ type: "institutionChosen", institutionId }),
        }}
        timeZone={timeZone}
      />
      {several ? (
        <SignersFieldset
          roles={chosen.roles}
          choices={state.choices}
          order={state.order}
          onChoices={(choices) => dispatch({ type: "signersChosen", choices })}
          onOrder={(order) => dispatch({ type: "ordered", order })}
          error={message("signers") ?? message("signing_order")}
        />
      ) : null}
      {draft.document_id && !several && chosen.loaded ? (
        <DocumentsByLanguageFieldset
          documents={active.filter((doc) => doc.id !== draft.document_id)}
          value={state.byLanguage}
          onChange={(byLanguage) => dispatch({ type: "languagesChosen", byLanguage })}
          error={(language) => message("documents_by_language") ?? message(`documents_by_language.${language}`)}
        />
      ) : null}
      <LiveRegion>
        <ErrorNotice error={create.error} fields={REQUEST_FIELDS} />
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
