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

/** The signing order: one after the other, or all at once. */
function SigningOrderField({ order, onOrder }: { order: SigningOrder; onOrder(order: SigningOrder): void }) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  return (
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
  );
}

/** Moves a role one place up or down in a sequential order. */
function MoveButtons({
  role,
  first,
  last,
  onMove,
}: {
  role: string;
  first: boolean;
  last: boolean;
  onMove(by: -1 | 1): void;
}) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  return (
    <span className="cs-row">
      <Button
        size="small"
        variant="ghost"
        disabled={first}
        aria-label={format(s.moveUp, { role })}
        onClick={() => onMove(-1)}
      >
        <span aria-hidden="true">↑</span>
      </Button>
      <Button
        size="small"
        variant="ghost"
        disabled={last}
        aria-label={format(s.moveDown, { role })}
        onClick={() => onMove(1)}
      >
        <span aria-hidden="true">↓</span>
      </Button>
    </span>
  );
}

interface SignerChoiceItemProps {
  choice: SignerChoice;
  index: number;
  /** How many roles there are (the last one cannot move down). */
  count: number;
  order: SigningOrder;
  /** At least one of the role's fields must be signed. */
  required: boolean;
  /** The signed-in member first, then the other active members (admins only). */
  staffOptions: readonly { value: string; label: string }[];
  onChange(change: Partial<SignerChoice>): void;
  onMove(by: -1 | 1): void;
}

/** One role: its place in the order (moved up or down), and who signs it: staff, or a person with a link. */
function SignerChoiceItem({
  choice,
  index,
  count,
  order,
  required,
  staffOptions,
  onChange,
  onMove,
}: SignerChoiceItemProps) {
  const { t } = useI18n();
  const s = t.signatureRequestsPage;
  const role = signerRoleLabel(choice.role, t.signing.signerRoles);
  const id = `signer-${index}`;
  return (
    <li className={styles.signerItem} data-testid="signer-choice">
      <div className={styles.signerHead}>
        <span className={styles.signerRole} id={`${id}-role`}>
          {order === "sequential" ? `${index + 1}. ` : ""}
          {role}
          {!required ? <span className="cs-hint"> · {s.optionalRole}</span> : null}
        </span>
        {order === "sequential" ? (
          <MoveButtons role={role} first={index === 0} last={index === count - 1} onMove={onMove} />
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
            onChange={(event) => onChange({ staffUserId: event.target.value })}
          />
          {choice.staffUserId === LINK ? (
            <>
              <TextField
                id={`${id}-name`}
                label={format(s.signerName, { role })}
                maxLength={200}
                autoComplete="off"
                value={choice.name}
                onChange={(event) => onChange({ name: event.target.value })}
              />
              <TextField
                id={`${id}-phone`}
                label={format(s.signerPhone, { role })}
                type="tel"
                maxLength={40}
                autoComplete="off"
                value={choice.phone}
                onChange={(event) => onChange({ phone: event.target.value })}
              />
            </>
          ) : (
            <p className="cs-hint">{s.staffSignsHint}</p>
          )}
        </div>
      )}
    </li>
  );
}

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
      <SigningOrderField order={order} onOrder={onOrder} />
      <ol className={styles.signerList}>
        {choices.map((choice, index) => (
          <SignerChoiceItem
            key={choice.role}
            choice={choice}
            index={index}
            count={choices.length}
            order={order}
            required={requiredOf(choice.role)}
            staffOptions={staffOptions}
            onChange={(change) => set(index, change)}
            onMove={(by) => onChoices(move(choices, index, by))}
          />
        ))}
      </ol>
      {error ? (
        <p className="cs-field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
