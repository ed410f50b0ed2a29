"use client";

import type { SignatureRequestDetail, UpdateSignatureRequestInput } from "@clinsign/contracts";
import { Button, LiveRegion, Notice, Segmented, TextField } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent, type ReactNode } from "react";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { dayFromNowIn, dayIn, endOfDayIn } from "../../lib/dates";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { fieldMessage } from "../../trpc/field-errors";
import { isOpen } from "./states";
import styles from "./signature-requests.module.css";
import { ErrorNotice } from "../../components/ErrorNotice";

type Visibility = SignatureRequestDetail["visibility"];

/** One `signatures.update` form: its own mutation, so each change says on its own what happened. */
function useUpdate(id: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.signatures.update.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.signatures.detail.queryKey({ id }) });
        void queryClient.invalidateQueries({ queryKey: trpc.signatures.list.pathKey() });
      },
    }),
  );
}

type Update = ReturnType<typeof useUpdate>;

/** A change's outcome under its form; field errors stay on the field. */
function Outcome({ update, success, fieldShown }: { update: Update; success: string; fieldShown: boolean }) {
  return (
    <LiveRegion>
      {update.isSuccess ? <Notice tone="success">{success}</Notice> : null}
      {fieldShown ? null : <ErrorNotice error={update.error} />}
    </LiveRegion>
  );
}

function Section({ title, hint, children }: { title: string; hint: ReactNode; children: ReactNode }) {
  return (
    <section className={styles.change}>
      <h3 className={styles.subheading}>{title}</h3>
      <p className="cs-hint">{hint}</p>
      {children}
    </section>
  );
}

function VisibilityForm({ request }: { request: SignatureRequestDetail }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const update = useUpdate(request.id);
  const [value, setValue] = useState<Visibility>(request.visibility);
  function submit(event: FormEvent) {
    event.preventDefault();
    update.mutate({ id: request.id, visibility: value });
  }
  return (
    <Section title={s.visibility} hint={s.visibilityHint}>
      <form className={styles.changeForm} onSubmit={submit}>
        <Segmented<Visibility>
          label={s.visibility}
          name="request-visibility"
          value={value}
          onChange={(next) => {
            update.reset();
            setValue(next);
          }}
          options={[
            { value: "active", label: s.visibilityActive },
            { value: "draft", label: s.visibilityDraft },
          ]}
        />
        <Button type="submit" busy={update.isPending} disabled={value === request.visibility && !update.isPending}>
          {s.saveVisibility}
        </Button>
      </form>
      <Outcome
        update={update}
        success={value === "draft" ? s.visibilitySavedDraft : s.visibilitySavedActive}
        fieldShown={false}
      />
    </Section>
  );
}

function ExpiryForm({ request }: { request: SignatureRequestDetail }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  // The day is the clinic's, as are the dates shown (the link works until 23:59:59 there).
  const clinic = useClinicTime();
  const update = useUpdate(request.id);
  const [day, setDay] = useState(dayIn(request.expiresAt, clinic.timeZone));
  const error = update.error ? fieldMessage(readApiError(update.error), "expiresAt", t) : undefined;
  const open = isOpen(request.status);
  function submit(event: FormEvent) {
    event.preventDefault();
    update.mutate({ id: request.id, expiresAt: endOfDayIn(day, clinic.timeZone) ?? day });
  }
  return (
    <Section
      title={s.expiry}
      hint={open ? format(s.expiryNow, { date: clinic.dateTimeWithZone(request.expiresAt) }) : s.expiryClosed}
    >
      {open ? (
        <form className={styles.changeForm} onSubmit={submit}>
          <TextField
            label={s.newExpiry}
            type="date"
            min={dayFromNowIn(0, clinic.timeZone)}
            value={day}
            onChange={(e) => {
              update.reset();
              setDay(e.target.value);
            }}
            required
            error={error}
          />
          <Button type="submit" busy={update.isPending}>
            {s.saveExpiry}
          </Button>
        </form>
      ) : null}
      <Outcome
        update={update}
        success={format(s.expirySaved, {
          date: update.variables?.expiresAt ? clinic.dateTimeWithZone(update.variables.expiresAt) : "",
        })}
        fieldShown={Boolean(error)}
      />
    </Section>
  );
}

function LinkForm({ request }: { request: SignatureRequestDetail }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const update = useUpdate(request.id);
  const [url, setUrl] = useState(request.assignmentUrl ?? "");
  const [last, setLast] = useState<UpdateSignatureRequestInput | null>(null);
  const error = update.error ? fieldMessage(readApiError(update.error), "assignmentUrl", t) : undefined;
  function send(input: UpdateSignatureRequestInput) {
    setLast(input);
    update.mutate(input);
  }
  function submit(event: FormEvent) {
    event.preventDefault();
    send({ id: request.id, assignmentUrl: url.trim() });
  }
  return (
    <Section title={s.linkUrl} hint={s.linkUrlHint}>
      <form className={styles.changeForm} onSubmit={submit}>
        <TextField
          label={s.linkUrlField}
          type="url"
          inputMode="url"
          placeholder="https://"
          value={url}
          onChange={(e) => {
            update.reset();
            setUrl(e.target.value);
          }}
          maxLength={2048}
          required
          error={error}
        />
        <div className="cs-row">
          <Button type="submit" busy={update.isPending && last?.assignmentUrl !== null}>
            {s.saveLink}
          </Button>
          {request.assignmentUrl ? (
            <Button
              type="button"
              variant="danger-outline"
              busy={update.isPending && last?.assignmentUrl === null}
              onClick={() => {
                setUrl("");
                send({ id: request.id, assignmentUrl: null });
              }}
            >
              {s.clearLink}
            </Button>
          ) : null}
        </div>
      </form>
      <Outcome
        update={update}
        success={last?.assignmentUrl === null ? s.linkCleared : s.linkSaved}
        fieldShown={Boolean(error)}
      />
    </Section>
  );
}

/** What staff may change on a request: visibility (A7), expiry while open, and the link A2 shows. */
export function RequestChanges({ request }: { request: SignatureRequestDetail }) {
  return (
    <div className={styles.changes}>
      <VisibilityForm request={request} />
      <ExpiryForm request={request} />
      <LinkForm request={request} />
    </div>
  );
}
