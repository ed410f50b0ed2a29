"use client";

import type { SignerStatus, SigningParty, SigningView } from "@clinsign/contracts";
import type { PdfShownField } from "@clinsign/ui/pdf-geometry";
import { format, type PatientDictionary } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { CheckIcon, ClockIcon } from "../patient/icons";
import { StatusCard } from "../patient/StatusCard";
import { signerRoleLabel, signerRoleList } from "./roles";
import styles from "./signing.module.css";

/**
 * What the document viewer outlines for one signer: their own fields to sign, and the signatures
 * the others already made, in those signers' fields. Other signers' empty fields are not shown:
 * they are not this signer's to fill.
 */
export function partyFields(view: Pick<SigningView, "fields" | "party">, t: PatientDictionary): PdfShownField[] {
  const own: PdfShownField[] = (view.fields ?? []).map(({ page, x, y, width, height }) => ({
    page,
    x,
    y,
    width,
    height,
  }));
  const party = view.party;
  if (!party) return own;
  const made = party.signers.flatMap((signer) => {
    if (signer.id === party.me || !signer.signature) return [];
    const role = signerRoleLabel(signer.role, t.signing.signerRoles);
    const alt = format(t.signing.signatureOf, { role });
    const signature = signer.signature;
    return signer.fields.map(({ page, x, y, width, height }): PdfShownField => ({
      page,
      x,
      y,
      width,
      height,
      label: role,
      signed: signature.kind === "drawn" ? { image: signature.dataUrl, alt } : { text: signature.name, alt },
    }));
  });
  return [...own, ...made];
}

/** The required signers, other than the viewer, who have not signed yet. */
export function stillToSign(party: SigningParty): string[] {
  return party.signers
    .filter((signer) => signer.id !== party.me && signer.required && signer.status !== "signed")
    .map((signer) => signer.role);
}

function statusText(status: SignerStatus, mine: boolean, t: PatientDictionary): string {
  if (mine && (status === "pending" || status === "opened")) return t.signing.signerStatusYourTurn;
  const texts: Record<SignerStatus, string> = {
    waiting: t.signing.signerStatusWaiting,
    pending: t.signing.signerStatusPending,
    opened: t.signing.signerStatusPending,
    signed: t.signing.signerStatusSigned,
    declined: t.signing.signerStatusDeclined,
    skipped: t.signing.signerStatusSkipped,
  };
  return texts[status];
}

/** Who signs this document, in order, and where each stands (the viewer marked as "you"). */
export function PartyList({ party }: { party: SigningParty }) {
  const { t } = usePatientI18n();
  const s = t.signing;
  return (
    <section className={styles.party} aria-labelledby="party-heading" data-testid="signing-party">
      <h2 id="party-heading" className={styles.partyHeading}>
        {s.partyHeading}
      </h2>
      <p className="cs-hint">{party.order === "sequential" ? s.partyOrderSequential : s.partyOrderParallel}</p>
      <ol className={styles.partyList}>
        {party.signers.map((signer) => {
          const mine = signer.id === party.me;
          const role = signerRoleLabel(signer.role, s.signerRoles);
          return (
            <li key={signer.id} className={styles.partyItem} data-status={signer.status} data-mine={mine || undefined}>
              <span className={styles.partyRole}>
                {mine ? format(s.partyYou, { role }) : role}
                {!signer.required ? <span className="cs-hint"> · {s.partyOptional}</span> : null}
              </span>
              <span className={styles.partyStatus}>
                {signer.status === "signed" ? <CheckIcon /> : null}
                {statusText(signer.status, mine, t)}
              </span>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** Sequential order, and earlier signers have not signed: whose turn it is, and that the page updates. */
export function WaitingScreen({ party, focus }: { party: SigningParty; focus?: boolean }) {
  const { t } = usePatientI18n();
  const s = t.signing;
  const roles = signerRoleList(party.waitingFor, s.signerRoles);
  return (
    <div className={styles.flow}>
      <StatusCard
        title={format(s.waitingTitle, { roles })}
        body={
          <>
            <p>{s.waitingBody}</p>
            <p className="cs-hint" role="status">
              {s.waitingUpdates}
            </p>
          </>
        }
        tone="neutral"
        icon={<ClockIcon />}
        state="waiting"
        focus={focus}
      />
      <PartyList party={party} />
    </div>
  );
}

/** This signer signed; others still have to before the document is sealed. */
export function SignedForOthersScreen({ party, focus }: { party: SigningParty | undefined; focus?: boolean }) {
  const { t } = usePatientI18n();
  const s = t.signing;
  const remaining = party ? stillToSign(party) : [];
  return (
    <div className={styles.flow}>
      <StatusCard
        title={s.signedOthersTitle}
        body={
          remaining.length > 0
            ? format(s.signedOthersBody, { roles: signerRoleList(remaining, s.signerRoles) })
            : s.signedOthersBodyDone
        }
        tone="success"
        icon={<CheckIcon />}
        state="signed"
        focus={focus}
      />
      {party ? <PartyList party={party} /> : null}
    </div>
  );
}
