"use client";

import type { OrganizationSeal, SealCertificate, SealRefusalReason } from "@clinsign/contracts";
import { Badge, Button, Card, ConfirmDialog, Fact, Facts, Field, Notice, Skeleton, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { LoadFailed } from "../../components/LoadFailed";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./settings.module.css";

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
  t: ReturnType<typeof useI18n>["t"]["settings"]["seal"];
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
  const [file, setFile] = useState<File | null>(null);
  const [password, setPassword] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  const [confirmingRemoval, setConfirmingRemoval] = useState(false);
  // A new key empties the file input after an upload (its value cannot be set).
  const [inputKey, setInputKey] = useState(0);
  // The certificate's days on the clinic's clock, like every date of the console.
  const { timeZone } = useClinicTime();
  const formatDate = (iso: string) =>
    new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone }).format(new Date(iso));

  const saved = (data: OrganizationSeal) => queryClient.setQueryData(trpc.organization.seal.queryKey(), data);
  const upload = useMutation(
    trpc.organization.uploadSeal.mutationOptions({
      onSuccess: (data) => {
        saved(data);
        setFile(null);
        setPassword("");
        setInputKey((key) => key + 1);
      },
    }),
  );
  const remove = useMutation(
    trpc.organization.removeSeal.mutationOptions({
      onSuccess: (data) => {
        saved(data);
        setConfirmingRemoval(false);
      },
    }),
  );

  const uploadError = upload.error ? readApiError(upload.error) : null;
  const reason = uploadError?.details.reason as SealRefusalReason | undefined;
  const reasonText =
    reason && reason in s.reasons ? s.reasons[reason] : uploadError ? describeApiError(uploadError, t) : null;
  const errorField = uploadError?.details.field === "password" ? "password" : uploadError ? "file" : null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    upload.reset();
    if (!file) return setFileError(s.chooseFileFirst);
    if (file.size > MAX_P12_BYTES) return setFileError(s.reasons.not_pkcs12);
    upload.mutate({ p12Base64: await toBase64(file), password });
  }

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
              <Button variant="danger" onClick={() => setConfirmingRemoval(true)}>
                {s.remove}
              </Button>
            </div>
          </>
        ) : (
          <Notice tone="info">
            {format(seal.data.default.development ? s.usingDevelopment : s.usingDefault, {
              subject: seal.data.default.subject,
            })}
          </Notice>
        )}

        <form
          className={`cs-stack ${styles.sealForm}`}
          onSubmit={(event) => void submit(event)}
          noValidate
          aria-label={own ? s.replaceTitle : s.uploadTitle}
        >
          <h3>{own ? s.replaceTitle : s.uploadTitle}</h3>
          <Field
            id="seal-file"
            label={s.fileLabel}
            hint={s.fileHint}
            error={fileError ?? (errorField === "file" ? reasonText : null)}
            announceError
          >
            {(attributes) => (
              <input
                key={inputKey}
                {...attributes}
                name="p12"
                className="cs-input"
                type="file"
                accept=".p12,.pfx,application/x-pkcs12"
                onChange={(event) => {
                  setFile(event.target.files?.[0] ?? null);
                  setFileError(null);
                  upload.reset();
                }}
              />
            )}
          </Field>
          <TextField
            label={s.passwordLabel}
            hint={s.passwordHint}
            type="password"
            name="p12-password"
            autoComplete="off"
            value={password}
            maxLength={1000}
            error={errorField === "password" ? reasonText : undefined}
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
