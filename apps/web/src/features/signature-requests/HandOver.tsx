"use client";

import type { CreatedSigner } from "@clinsign/contracts";
import { Button, CopyField } from "@clinsign/ui";
import { useState } from "react";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { signerRoleLabel } from "../signing/roles";
import { QrCode } from "./QrCode";
import { SendLinkForm } from "./SendLinkForm";
import styles from "./signature-requests.module.css";

/** One person a request is handed to: who (role and name, as staff gave it) and their own link. */
interface Recipient {
  key: string;
  who: string;
  link: string;
  testId: string;
  /** Several signers: the signer row (absent for the patient, whose link is the request's). */
  signerId?: string;
}

/** The patient first (the request's link), then each signer with a link of their own, in signing order. */
function recipientsOf(link: string, signers: readonly CreatedSigner[] | undefined, t: Dictionary): Recipient[] {
  const named = (role: string, name: string | null) => {
    const label = signerRoleLabel(role, t.signing.signerRoles);
    return name ? `${label}: ${name}` : label;
  };
  const patient = (signers ?? []).find((signer) => signer.kind === "patient");
  const others = (signers ?? []).filter((signer) => signer.kind === "link" && signer.signing_link);
  return [
    { key: "patient", who: named("patient", patient?.name ?? null), link, testId: "signing-link" },
    ...others.map((signer) => ({
      key: signer.signer_id,
      who: named(signer.role, signer.name),
      link: signer.signing_link!,
      testId: `signing-link-${signer.role}`,
      signerId: signer.signer_id,
    })),
  ];
}

/**
 * The link handed over: copy it into a message, or let the person scan it at the desk. With
 * several signers each one who signs by link gets their own, handed over one at a time, patient
 * first, every link and QR code named by role and name (staff sign in the console), so the
 * physician's link never reaches the patient's phone.
 */
export function HandOver({
  signatureRequestId,
  link,
  expiresAt,
  signers,
  patientPhone,
}: {
  signatureRequestId: string;
  link: string;
  expiresAt: string;
  signers?: readonly CreatedSigner[];
  /** The patient's mobile number on the request, where the link goes by SMS unless another is typed. */
  patientPhone?: string | null;
}) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const s = t.signatureRequestsPage;
  const recipients = recipientsOf(link, signers, t);
  const [index, setIndex] = useState(0);
  const several = recipients.length > 1;
  const current = recipients[index]!;
  const next = recipients[index + 1];
  return (
    <div className="cs-stack">
      {several ? (
        <p className="cs-label" aria-live="polite" data-testid="hand-over-step">
          {format(s.handOverStep, { step: index + 1, count: recipients.length, who: current.who })}
        </p>
      ) : null}
      <div className={styles.handOver}>
        <div className="cs-stack">
          <CopyField
            key={current.key}
            label={several ? format(s.linkFor, { who: current.who }) : s.signingLink}
            hint={several ? s.signerLinkHint : s.signingLinkHint}
            value={current.link}
            labels={t.common}
            testId={current.testId}
          />
          <p className="cs-hint">{format(s.linkExpires, { date: clinic.dateTime(expiresAt) })}</p>
          <SendLinkForm
            key={`send-${current.key}`}
            signatureRequestId={signatureRequestId}
            signerId={current.signerId}
            who={current.who}
            knownPhone={current.signerId ? null : patientPhone}
          />
          {next ? (
            <div>
              <Button onClick={() => setIndex(index + 1)}>{format(s.nextSigner, { who: next.who })}</Button>
            </div>
          ) : several ? (
            <div>
              <Button variant="ghost" onClick={() => setIndex(0)}>
                {s.handOverAgain}
              </Button>
            </div>
          ) : null}
        </div>
        <figure className={styles.qrFigure}>
          <QrCode value={current.link} label={several ? format(s.qrLabelFor, { who: current.who }) : s.qrLabel} />
          <figcaption className="cs-hint">
            {several ? format(s.qrCaptionFor, { who: current.who }) : s.qrCaption}
          </figcaption>
        </figure>
      </div>
    </div>
  );
}
