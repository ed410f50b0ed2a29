"use client";

import { Card } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCan } from "../../components/admin-shell/SessionContext";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { signerRoleLabel } from "../signing/roles";
import styles from "./signature-requests.module.css";

/**
 * Several signers: the requests where it is the signed-in member's turn to sign a staff role
 * (the informing physician's countersignature). Nothing is shown while there is none.
 */
export function AwaitingMySignature() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const s = t.signatureRequestsPage;
  const trpc = useTRPC();
  const may = useCan()("signatures.awaitingMySignature");
  const awaiting = useQuery({ ...trpc.signatures.awaitingMySignature.queryOptions(), enabled: may });
  const items = awaiting.data?.items ?? [];
  if (items.length === 0) return null;
  return (
    <Card title={s.awaitingTitle} description={s.awaitingDescription}>
      <ul className={styles.awaiting} data-testid="awaiting-my-signature">
        {items.map((item) => {
          const role = signerRoleLabel(item.role, t.signing.signerRoles);
          return (
            <li key={item.id}>
              <Link href={`/signature-requests/${item.id}`}>
                {format(s.awaitingItem, { document: item.documentTitle || item.documentName, role })}
              </Link>
              <span className="cs-hint">
                {format(s.awaitingMeta, {
                  patient: item.patientId,
                  date: clinic.dateTime(item.expiresAt),
                })}
              </span>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
