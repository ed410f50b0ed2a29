"use client";

import { inviteUserInput, type Role } from "@clinsign/contracts";
import { Button, Card, CopyField, Notice, TextField } from "@clinsign/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState, type FormEvent, type RefObject } from "react";
import { useSession } from "../../components/admin-shell/SessionContext";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { readApiError, translateValidationMessage } from "../../trpc/errors";
import { RoleSelect } from "./RoleSelect";
import { assignableRoles, describeUsersError } from "./users-rules";
import styles from "./users.module.css";

/** An invitation link to hand over by hand, where no mail server sent it. */
interface HandOver {
  email: string;
  link: string;
}

/** Invite a colleague by address and role; without a mail server, the link to hand over. */
export function InviteForm({ onAnnounce }: { onAnnounce(text: string): void }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const me = useSession();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("staff");
  const [emailError, setEmailError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  // Without a mail server the link is shown here, this once: nothing else will reach the colleague.
  const [handOver, setHandOver] = useState<HandOver | null>(null);
  const emailRef = useRef<HTMLInputElement>(null);

  const invite = useMutation(
    trpc.users.invite.mutationOptions({
      onSuccess: (result, input) => {
        const link = result.delivery === "outbox" ? result.link : null;
        setHandOver(link ? { email: input.email, link } : null);
        onAnnounce(format(link ? t.users.invitedNoMail : t.users.invited, { email: input.email }));
        setEmail("");
        void queryClient.invalidateQueries({ queryKey: trpc.users.invites.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.messages.list.pathKey() });
      },
      onError: (error) => {
        const apiError = readApiError(error);
        const field = apiError.fieldErrors.find((issue) => issue.key === "email");
        if (field) {
          setEmailError(translateValidationMessage(field.message, t));
          emailRef.current?.focus();
        } else setFormError(describeUsersError(apiError, t));
      },
    }),
  );

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    const parsed = inviteUserInput.safeParse({ email, role });
    if (!parsed.success) {
      setEmailError(t.validation.email);
      emailRef.current?.focus();
      return;
    }
    setEmailError(null);
    invite.mutate(parsed.data);
  }

  return (
    <Card title={t.users.inviteTitle} description={t.users.inviteDescription}>
      <InviteFields
        email={email}
        emailError={emailError}
        emailRef={emailRef}
        role={role}
        roles={assignableRoles(me.role)}
        busy={invite.isPending}
        onEmailChange={setEmail}
        onRoleChange={setRole}
        onSubmit={onSubmit}
      />
      {formError ? (
        <Notice tone="danger" role="alert">
          {formError}
        </Notice>
      ) : null}
      {handOver ? <InviteLinkHandOver handOver={handOver} onDone={() => setHandOver(null)} /> : null}
    </Card>
  );
}

/** The address and role to invite, and Invite. */
function InviteFields({
  email,
  emailError,
  emailRef,
  role,
  roles,
  busy,
  onEmailChange,
  onRoleChange,
  onSubmit,
}: {
  email: string;
  emailError: string | null;
  emailRef: RefObject<HTMLInputElement | null>;
  role: Role;
  roles: readonly Role[];
  busy: boolean;
  onEmailChange(email: string): void;
  onRoleChange(role: Role): void;
  onSubmit(event: FormEvent<HTMLFormElement>): void;
}) {
  const { t } = useI18n();
  const roleId = useId();
  return (
    <form className={styles.inviteForm} onSubmit={onSubmit} noValidate>
      <TextField
        ref={emailRef}
        className={styles.inviteEmail}
        label={t.users.emailLabel}
        name="inviteEmail"
        type="email"
        inputMode="email"
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        value={email}
        error={emailError ?? undefined}
        onChange={(event) => onEmailChange(event.currentTarget.value)}
      />
      <RoleSelect
        id={roleId}
        className={styles.inviteRole}
        label={t.users.roleLabel}
        value={role}
        options={roles}
        onChange={onRoleChange}
      />
      <Button type="submit" variant="primary" className={styles.inviteButton} busy={busy}>
        {t.users.invite}
      </Button>
    </form>
  );
}

/** The invitation link, shown this once to copy, with a word on why no e-mail went out. */
function InviteLinkHandOver({ handOver, onDone }: { handOver: HandOver; onDone(): void }) {
  const { t } = useI18n();
  return (
    <div className="cs-stack" data-testid="invite-link-shown">
      <Notice tone="warning">{format(t.users.noMailSent, { email: handOver.email })}</Notice>
      <CopyField
        label={format(t.users.inviteLinkLabel, { email: handOver.email })}
        hint={t.users.inviteLinkHint}
        value={handOver.link}
        labels={t.common}
        testId="invite-link"
      />
      <div>
        <Button onClick={onDone}>{t.users.inviteLinkDone}</Button>
      </div>
    </div>
  );
}
