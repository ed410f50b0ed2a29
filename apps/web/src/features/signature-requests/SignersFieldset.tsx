"use client";

import { PATIENT_ROLE, type SigningOrder } from "@clinsign/contracts";
import { Button, Segmented, SelectField, TextField } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { useCan, useSession } from "../../components/admin-shell/SessionContext";
import { signerRoleLabel } from "../signing/roles";
import { move, type DocumentRole, type SignerChoice } from "./signers";
import styles from "./signature-requests.module.css";

/** The select's value for "a person with their own signing link". */
const LINK = "";

/**
 * For a document with several roles: the order (one after the other, or all at once) and who
 * signs each role. The patient signs through the request's own link; every other role is either
 * a staff member, who signs in the console, or a person with their own link (name and mobile
 * number optional). Admins pick any member; others can name themselves (the member list is an
 * admin's page).
 */
export function SignersFieldset({
  roles,
  choices,
  order,
  onChoices,
  onOrder,
  error,
}: {
  roles: readonly DocumentRole[];
  choices: readonly SignerChoice[];
  order: SigningOrder;
  onChoices(choices: SignerChoice[]): void;
  onOrder(order: SigningOrder): void;
  error?: string | null;
}) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const names = t.signing.signerRoles;
  const me = useSession();
  const trpc = useTRPC();
  const mayListMembers = useCan()("users.list");
  const members = useQuery({ ...trpc.users.list.queryOptions({ limit: 200 }), enabled: mayListMembers });
  const staff = (members.data?.items ?? []).filter((member) => !member.deactivatedAt);
  const meLabel = format(s.signedByMe, { name: me.user.name || me.user.email });
  const staffOptions = [
    { value: me.user.id, label: meLabel },
    ...staff
      .filter((member) => member.id !== me.user.id)
      .map((member) => ({ value: member.id, label: member.name ? `${member.name} (${member.email})` : member.email })),
  ];
  const requiredOf = (role: string) => roles.find((r) => r.role === role)?.required ?? true;
  const set = (index: number, change: Partial<SignerChoice>) =>
    onChoices(choices.map((choice, i) => (i === index ? { ...choice, ...change } : choice)));

  return (
    <fieldset className={styles.signers} aria-describedby="signers-hint">
      <legend className={styles.signersLegend}>{s.signersTitle}</legend>
      <p id="signers-hint" className="cs-hint">
        {s.signersHint}
      </p>
      <div className="cs-field">
        <span className="cs-label" aria-hidden="true">
          {s.orderLabel}
        </span>
        <Segmented<SigningOrder>
          label={s.orderLabel}
          name="signing_order"
          options={[
            { value: "sequential", label: s.orderSequential },
            { value: "parallel", label: s.orderParallel },
          ]}
          value={order}
          onChange={onOrder}
        />
        <span className="cs-hint">{order === "sequential" ? s.orderSequentialHint : s.orderParallelHint}</span>
      </div>
      <ol className={styles.signerList}>
        {choices.map((choice, index) => {
          const role = signerRoleLabel(choice.role, names);
          const id = `signer-${index}`;
          return (
            <li key={choice.role} className={styles.signerItem} data-testid="signer-choice">
              <div className={styles.signerHead}>
                <span className={styles.signerRole} id={`${id}-role`}>
                  {order === "sequential" ? `${index + 1}. ` : ""}
                  {role}
                  {!requiredOf(choice.role) ? <span className="cs-hint"> · {s.optionalRole}</span> : null}
                </span>
                {order === "sequential" ? (
                  <span className="cs-row">
                    <Button
                      size="small"
                      variant="ghost"
                      disabled={index === 0}
                      aria-label={format(s.moveUp, { role })}
                      onClick={() => onChoices(move(choices, index, -1))}
                    >
                      <span aria-hidden="true">↑</span>
                    </Button>
                    <Button
                      size="small"
                      variant="ghost"
                      disabled={index === choices.length - 1}
                      aria-label={format(s.moveDown, { role })}
                      onClick={() => onChoices(move(choices, index, 1))}
                    >
                      <span aria-hidden="true">↓</span>
                    </Button>
                  </span>
                ) : null}
              </div>
              {choice.role === PATIENT_ROLE ? (
                <p className="cs-hint">{s.patientSigns}</p>
              ) : (
                <div className={styles.formGrid}>
                  <SelectField
                    id={`${id}-by`}
                    label={format(s.signedBy, { role })}
                    options={[{ value: LINK, label: s.signedByLink }, ...staffOptions]}
                    value={choice.staffUserId}
                    onChange={(event) => set(index, { staffUserId: event.target.value })}
                  />
                  {choice.staffUserId === LINK ? (
                    <>
                      <TextField
                        id={`${id}-name`}
                        label={format(s.signerName, { role })}
                        maxLength={200}
                        autoComplete="off"
                        value={choice.name}
                        onChange={(event) => set(index, { name: event.target.value })}
                      />
                      <TextField
                        id={`${id}-phone`}
                        label={format(s.signerPhone, { role })}
                        type="tel"
                        maxLength={40}
                        autoComplete="off"
                        value={choice.phone}
                        onChange={(event) => set(index, { phone: event.target.value })}
                      />
                    </>
                  ) : (
                    <p className="cs-hint">{s.staffSignsHint}</p>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ol>
      {error ? (
        <p className="cs-field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
