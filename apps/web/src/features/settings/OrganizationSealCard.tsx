"use client";

import type { OrganizationSeal, SealCertificate, SealRefusalReason } from "@clinsign/contracts";
import { Badge, Button, Card, ConfirmDialog, Fact, Facts, Field, Notice, Skeleton, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { LoadFailed } from "../../components/LoadFailed";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./settings.module.css";

type SealTexts = Dictionary["settings"]["seal"];
type OwnSealInfo = NonNullable<OrganizationSeal["own"]>;

/** A PKCS#12 file is a few kilobytes; anything much larger is not one. */
const MAX_P12_BYTES = 192 * 1024;

async function toBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function CertificateFacts({
  certificate,
  formatDate,
  t,
}: {
  certificate: SealCertificate;
  formatDate: (iso: string) => string;
  t: SealTexts;
}) {
  return (
    <Facts>
      <Fact term={t.subject}>{certificate.subject}</Fact>
      <Fact term={t.issuer}>{certificate.issuer}</Fact>
      <Fact term={t.validity}>
        {format(t.validityRange, { from: formatDate(certificate.notBefore), to: formatDate(certificate.notAfter) })}
      </Fact>
      <Fact term={t.fingerprint} className={styles.fingerprint}>
        {certificate.fingerprint}
      </Fact>
    </Facts>
  );
}

/**
 * The organization's own seal: upload a PKCS#12 (its password opens it once and is never
 * stored), see its certificate and chain with a warning 60 days before expiry, remove it to seal
 * with the service's default certificate again. Owners and admins only.
 */
export function OrganizationSealCard() {
  const { t, locale } = useI18n();
  const s = t.settings.seal;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const seal = useQuery(trpc.organization.seal.queryOptions());
  const [confirmingRemoval, setConfirmingRemoval] = useState(false);
  // The certificate's days on the clinic's clock, like every date of the console.
  const { timeZone } = useClinicTime();
  const formatDate = (iso: string) =>
    new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone }).format(new Date(iso));

  const remove = useMutation(
    trpc.organization.removeSeal.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.organization.seal.queryKey(), data);
        setConfirmingRemoval(false);
      },
    }),
  );

  if (seal.isPending) {
    return (
      <Card title={s.title}>
        <Skeleton label={t.common.loading} lines={3} />
      </Card>
    );
  }
  if (seal.error) return <LoadFailed query={seal} />;
  const own = seal.data.own;

  return (
    <Card title={s.title} description={s.description} data-testid="organization-seal">
      <div className="cs-stack">
        {own ? (
          <OwnSeal own={own} formatDate={formatDate} s={s} onRemove={() => setConfirmingRemoval(true)} />
        ) : (
          <Notice tone="info">
            {format(seal.data.default.development ? s.usingDevelopment : s.usingDefault, {
              subject: seal.data.default.subject,
            })}
          </Notice>
        )}

        <SealUploadForm replacing={own !== null} />
      </div>

      <ConfirmDialog
        open={confirmingRemoval}
        onCancel={() => setConfirmingRemoval(false)}
        onConfirm={() => remove.mutate()}
        title={s.removeTitle}
        description={s.removeBody}
        confirmLabel={s.removeConfirm}
        cancelLabel={t.common.cancel}
        closeLabel={t.common.close}
        busy={remove.isPending}
        error={remove.error ? describeApiError(readApiError(remove.error), t) : null}
      />
    </Card>
  );
}

/** The seal in use: its state, a notice when it expired or expires soon, its certificate and chain. */
function OwnSeal({
  own,
  formatDate,
  s,
  onRemove,
}: {
  own: OwnSealInfo;
  formatDate: (iso: string) => string;
  s: SealTexts;
  onRemove(): void;
}) {
  return (
    <>
      <div className="cs-row">
        <h3>{s.ownTitle}</h3>
        <Badge tone={own.expired ? "danger" : own.expiresSoon ? "warning" : "success"}>
          {own.expired ? s.expired : own.expiresSoon ? s.expiresSoonBadge : s.active}
        </Badge>
      </div>
      {own.expired ? (
        <Notice tone="danger" role="alert">
          {s.expiredNotice}
        </Notice>
      ) : own.expiresSoon ? (
        <Notice tone="warning" role="status">
          {format(s.expiresSoon, { days: Math.max(0, own.daysLeft), date: formatDate(own.certificate.notAfter) })}
        </Notice>
      ) : null}
      <CertificateFacts certificate={own.certificate} formatDate={formatDate} t={s} />
      {own.chain.length > 1 ? (
        <div className="cs-stack">
          <h4>{s.chainTitle}</h4>
          <ol className={styles.chain}>
            {own.chain.map((certificate, index) => (
              <li key={certificate.fingerprint}>
                <strong>{index === 0 ? s.chainSigner : s.chainIssuer}</strong> {certificate.subject}
                <span className="cs-hint">
                  {" "}
                  ·{" "}
                  {format(s.validityRange, {
                    from: formatDate(certificate.notBefore),
                    to: formatDate(certificate.notAfter),
                  })}
                </span>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      <div>
        <Button variant="danger" onClick={onRemove}>
          {s.remove}
        </Button>
      </div>
    </>
  );
}

/**
 * Uploading a seal (or a new one in place of the current): the file and its password, checked
 * here for size and then by the server, whose refusal lands on the field it concerns.
 */
function SealUploadForm({ replacing }: { replacing: boolean }) {
  const { t } = useI18n();
  const s = t.settings.seal;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [password, setPassword] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  // A new key empties the file input after an upload (its value cannot be set).
  const [inputKey, setInputKey] = useState(0);
  const upload = useMutation(
    trpc.organization.uploadSeal.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.organization.seal.queryKey(), data);
        setFile(null);
        setPassword("");
        setInputKey((key) => key + 1);
      },
    }),
  );

  const refusal = refusalMessages(upload.error, t);

  async function submit(event: FormEvent) {
    event.preventDefault();
    upload.reset();
    if (!file) return setFileError(s.chooseFileFirst);
    if (file.size > MAX_P12_BYTES) return setFileError(s.reasons.not_pkcs12);
    upload.mutate({ p12Base64: await toBase64(file), password });
  }

  const title = replacing ? s.replaceTitle : s.uploadTitle;
  return (
    <form
      className={`cs-stack ${styles.sealForm}`}
      onSubmit={(event) => void submit(event)}
      noValidate
      aria-label={title}
    >
      <h3>{title}</h3>
      <SealFileField
        inputKey={inputKey}
        error={fileError ?? refusal.file}
        onChoose={(chosen) => {
          setFile(chosen);
          setFileError(null);
          upload.reset();
        }}
      />
      <TextField
        label={s.passwordLabel}
        hint={s.passwordHint}
        type="password"
        name="p12-password"
        autoComplete="off"
        value={password}
        maxLength={1000}
        error={refusal.password}
        onChange={(event) => setPassword(event.target.value)}
      />
      <div>
        <Button type="submit" variant="primary" busy={upload.isPending}>
          {s.upload}
        </Button>
      </div>
      {upload.isSuccess ? (
        <Notice tone="success" role="status">
          {s.uploaded}
        </Notice>
      ) : null}
    </form>
  );
}

/** Where the server's refusal of an upload shows: on the password when it names it, else on the file. */
function refusalMessages(error: unknown, t: Dictionary): { file: string | null; password: string | undefined } {
  if (!error) return { file: null, password: undefined };
  const s = t.settings.seal;
  const apiError = readApiError(error);
  const reason = apiError.details.reason as SealRefusalReason | undefined;
  const text = reason && reason in s.reasons ? s.reasons[reason] : describeApiError(apiError, t);
  return apiError.details.field === "password" ? { file: null, password: text } : { file: text, password: undefined };
}

/** The PKCS#12 file to upload; a new `inputKey` empties it (a file input's value cannot be set). */
function SealFileField({
  inputKey,
  error,
  onChoose,
}: {
  inputKey: number;
  error: string | null;
  onChoose(file: File | null): void;
}) {
  const { t } = useI18n();
  const s = t.settings.seal;
  return (
    <Field id="seal-file" label={s.fileLabel} hint={s.fileHint} error={error} announceError>
      {(attributes) => (
        <input
          key={inputKey}
          {...attributes}
          name="p12"
          className="cs-input"
          type="file"
          accept=".p12,.pfx,application/x-pkcs12"
          onChange={(event) => onChoose(event.target.files?.[0] ?? null)}
        />
      )}
    </Field>
  );
}
