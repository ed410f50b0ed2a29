"use client";

import type { AccountSecurity, PasskeySummary, TotpSetup as TotpSetupData } from "@clinsign/contracts";
import { Badge, Button, Card, Icon, LiveRegion, Notice, TextField } from "@clinsign/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";

import { QueryState } from "../../components/QueryState";
import { PageHeader } from "../../components/PageHeader";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import { RecoveryCodes } from "./RecoveryCodes";
import { StepUp, useStepUp } from "./StepUp";
import { StepUpConfirm } from "./StepUpConfirm";
import { TotpSetup } from "./TotpSetup";
import { createPasskey, passkeyProblem } from "./webauthn";
import styles from "./account-security.module.css";

/** The signed-in member's own second factors: authenticator app, passkeys, recovery codes. */
export function SecurityPage() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const overview = useQuery(trpc.accountSecurity.overview.queryOptions());
  const [announcement, setAnnouncement] = useState<{ tone: "success" | "danger"; text: string } | null>(null);
  const [newCodes, setNewCodes] = useState<string[] | null>(null);

  return (
    <>
      <PageHeader title={t.security.pageTitle} description={t.security.description} />
      <div className="cs-stack cs-stack--lg">
        <LiveRegion>{announcement ? <Notice tone={announcement.tone}>{announcement.text}</Notice> : null}</LiveRegion>
        <QueryState query={overview} lines={4} card>
          {(security) => (
            <>
              {newCodes ? (
                <Card title={t.security.recoveryTitle}>
                  <RecoveryCodes codes={newCodes} onDone={() => setNewCodes(null)} />
                </Card>
              ) : null}
              {security.totp === null && security.passkeys.length === 0 ? (
                <Notice tone={security.required ? "warning" : "info"}>
                  {security.required
                    ? t.security.required
                    : security.stepUp.freshSignIn
                      ? t.security.noCredentials
                      : t.security.noFactor}
                </Notice>
              ) : security.required ? (
                <Notice tone="info">{t.security.required}</Notice>
              ) : null}
              <TotpCard security={security} onAnnounce={setAnnouncement} onCodes={setNewCodes} />
              <PasskeysCard security={security} onAnnounce={setAnnouncement} onCodes={setNewCodes} />
              <RecoveryCard security={security} onCodes={setNewCodes} onAnnounce={setAnnouncement} />
            </>
          )}
        </QueryState>
      </div>
    </>
  );
}

interface CardProps {
  security: AccountSecurity;
  onAnnounce: (announcement: { tone: "success" | "danger"; text: string } | null) => void;
  onCodes: (codes: string[] | null) => void;
}

function useRefresh() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.accountSecurity.overview.queryKey() });
}

function useErrorText() {
  const { t } = useI18n();
  return (error: unknown) => {
    const apiError = readApiError(error);
    if (apiError.details.reason === "second_factor_required") return t.security.lastFactorRequired;
    if (apiError.details.reason === "passkey_exists") return t.security.passkeyExists;
    return describeApiError(apiError, t);
  };
}

function TotpCard({ security, onAnnounce, onCodes }: CardProps) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const trpc = useTRPC();
  const refresh = useRefresh();
  const errorText = useErrorText();
  const [setup, setSetup] = useState<TotpSetupData | null>(null);
  const [codeError, setCodeError] = useState<string | null>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const stepUp = useStepUp(security.stepUp);

  const start = useMutation(
    trpc.accountSecurity.totpStart.mutationOptions({
      onSuccess: (data) => setSetup(data),
      onError: (e) => onAnnounce({ tone: "danger", text: errorText(e) }),
    }),
  );
  const confirm = useMutation(
    trpc.accountSecurity.totpConfirm.mutationOptions({
      onSuccess: async (data) => {
        setSetup(null);
        setCodeError(null);
        onAnnounce({ tone: "success", text: t.security.totpAdded });
        if (data.recoveryCodes) onCodes(data.recoveryCodes);
        await refresh();
      },
      onError: (e) => {
        if (stepUp.fail(e)) return setCodeError(null);
        setCodeError(readApiError(e).code === "BAD_REQUEST" ? t.login.wrongCode : errorText(e));
      },
    }),
  );
  const remove = useMutation(
    trpc.accountSecurity.totpRemove.mutationOptions({
      onSuccess: async () => {
        onAnnounce({ tone: "success", text: t.security.totpRemoved });
        await refresh();
      },
    }),
  );

  function confirmSetup(code: string) {
    const input = stepUp.read();
    if (input) confirm.mutate({ code, stepUp: input });
  }

  return (
    <Card title={t.security.totpTitle} description={t.security.totpDescription} data-testid="totp-card">
      {setup ? (
        <TotpSetup
          setup={setup}
          busy={confirm.isPending}
          error={codeError}
          onConfirm={confirmSetup}
          onCancel={() => (setSetup(null), stepUp.reset())}
        >
          <StepUp stepUp={stepUp} />
        </TotpSetup>
      ) : security.totp ? (
        <div className={styles.passkey}>
          <span className={styles.status}>
            <Icon name="check" />
            {format(t.security.totpOn, { date: clinic.dateTime(security.totp.createdAt) })}
          </span>
          <StepUpConfirm
            confirming={confirmRemove}
            onConfirmingChange={setConfirmRemove}
            question={t.security.totpRemoveConfirm}
            action={t.security.totpRemove}
            icon="trash"
            danger
            methods={security.stepUp}
            onConfirm={(input) => remove.mutateAsync({ stepUp: input })}
            onError={(e) => onAnnounce({ tone: "danger", text: errorText(e) })}
          />
        </div>
      ) : (
        <div className={styles.passkey}>
          <span className={styles.muted}>{t.security.totpOff}</span>
          <Button variant="primary" icon={<Icon name="plus" />} busy={start.isPending} onClick={() => start.mutate()}>
            {t.security.totpAdd}
          </Button>
        </div>
      )}
    </Card>
  );
}

function PasskeysCard({ security, onAnnounce, onCodes }: CardProps) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const refresh = useRefresh();
  const errorText = useErrorText();
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [adding, setAdding] = useState(false);
  const stepUp = useStepUp(security.stepUp);
  const options = useMutation(trpc.accountSecurity.passkeyOptions.mutationOptions());
  const register = useMutation(trpc.accountSecurity.passkeyRegister.mutationOptions());

  function close() {
    setConfirming(false);
    stepUp.reset();
  }

  /** First the name, then the step-up in the same form, then the browser's passkey prompt. */
  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const chosen = name.trim() || t.security.passkeyNameDefault;
    if (chosen.length > 60) return setNameError(t.validation.tooLong);
    setNameError(null);
    onAnnounce(null);
    if (!confirming) return setConfirming(true);
    const input = stepUp.read();
    if (!input) return;
    setAdding(true);
    try {
      const outcome = await createPasskey(await options.mutateAsync());
      if (!outcome.ok) {
        onAnnounce({ tone: "danger", text: passkeyProblem(outcome.reason, t, "security") });
        return;
      }
      const added = await register.mutateAsync({ name: chosen, response: outcome.response, stepUp: input });
      setName("");
      close();
      onAnnounce({ tone: "success", text: format(t.security.passkeyAdded, { name: chosen }) });
      if (added.recoveryCodes) onCodes(added.recoveryCodes);
      await refresh();
    } catch (error) {
      if (stepUp.fail(error)) return;
      onAnnounce({
        tone: "danger",
        text: readApiError(error).code === "BAD_REQUEST" ? t.security.passkeyFailed : errorText(error),
      });
    } finally {
      setAdding(false);
    }
  }

  return (
    <Card title={t.security.passkeysTitle} description={t.security.passkeysDescription} data-testid="passkeys-card">
      <div className="cs-stack cs-stack--lg">
        {security.passkeys.length === 0 ? (
          <p className={styles.muted}>{t.security.passkeysEmpty}</p>
        ) : (
          <ul className={styles.passkeys}>
            {security.passkeys.map((passkey) => (
              <PasskeyRow key={passkey.id} passkey={passkey} security={security} onAnnounce={onAnnounce} />
            ))}
          </ul>
        )}
        <form className={styles.addPasskey} onSubmit={add} noValidate>
          <TextField
            label={t.security.passkeyName}
            hint={t.security.passkeyNameHint}
            name="passkey-name"
            placeholder={t.security.passkeyNameDefault}
            maxLength={60}
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={nameError ?? undefined}
          />
          {confirming ? null : (
            <Button type="submit" icon={<Icon name="plus" />}>
              {t.security.passkeyAdd}
            </Button>
          )}
          {confirming ? (
            <div className={styles.stepUpConfirm}>
              <StepUp stepUp={stepUp} autoFocus />
              <div className="cs-row">
                <Button type="submit" variant="primary" icon={<Icon name="plus" />} busy={adding}>
                  {t.security.passkeyAdd}
                </Button>
                <Button disabled={adding} onClick={close}>
                  {t.common.cancel}
                </Button>
              </div>
            </div>
          ) : null}
        </form>
      </div>
    </Card>
  );
}

function PasskeyRow({
  passkey,
  security,
  onAnnounce,
}: Pick<CardProps, "security" | "onAnnounce"> & { passkey: PasskeySummary }) {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const trpc = useTRPC();
  const refresh = useRefresh();
  const errorText = useErrorText();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.accountSecurity.passkeyRemove.mutationOptions({
      onSuccess: async () => {
        onAnnounce({ tone: "success", text: format(t.security.passkeyRemoved, { name: passkey.name }) });
        await refresh();
      },
    }),
  );
  const used = passkey.lastUsedAt
    ? format(t.security.passkeyLastUsed, { date: clinic.dateTime(passkey.lastUsedAt) })
    : t.security.passkeyNeverUsed;
  return (
    <li className={styles.passkey} data-testid="passkey-row">
      <div>
        <div className={styles.status}>
          <Icon name="key" />
          <span className={styles.passkeyName}>{passkey.name}</span>
          {passkey.backedUp ? <Badge tone="accent">{t.security.passkeySynced}</Badge> : null}
        </div>
        <div className={styles.muted}>
          {format(t.security.passkeyCreated, { date: clinic.dateTime(passkey.createdAt) })} · {used}
        </div>
      </div>
      <StepUpConfirm
        confirming={confirming}
        onConfirmingChange={setConfirming}
        question={format(t.security.passkeyRemoveConfirm, { name: passkey.name })}
        action={t.security.passkeyRemove}
        icon="trash"
        danger
        ariaLabel={format(t.security.passkeyRemoveLabel, { name: passkey.name })}
        methods={security.stepUp}
        onConfirm={(input) => remove.mutateAsync({ id: passkey.id, stepUp: input })}
        onError={(e) => onAnnounce({ tone: "danger", text: errorText(e) })}
      />
    </li>
  );
}

function RecoveryCard({
  security,
  onCodes,
  onAnnounce,
}: Omit<CardProps, "onAnnounce"> & { onAnnounce: CardProps["onAnnounce"] }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const refresh = useRefresh();
  const errorText = useErrorText();
  const [confirming, setConfirming] = useState(false);
  const hasFactor = security.totp !== null || security.passkeys.length > 0;
  const regenerate = useMutation(
    trpc.accountSecurity.regenerateRecoveryCodes.mutationOptions({
      onSuccess: async (data) => {
        onCodes(data.recoveryCodes);
        await refresh();
      },
    }),
  );
  return (
    <Card title={t.security.recoveryTitle} description={t.security.recoveryDescription} data-testid="recovery-card">
      {hasFactor ? (
        <div className={styles.passkey}>
          <span>{format(t.security.recoveryLeft, { count: security.recoveryCodesLeft })}</span>
          <StepUpConfirm
            confirming={confirming}
            onConfirmingChange={setConfirming}
            question={t.security.recoveryRegenerateConfirm}
            action={t.security.recoveryRegenerate}
            icon="refresh"
            methods={security.stepUp}
            onConfirm={(input) => regenerate.mutateAsync({ stepUp: input })}
            onError={(e) => onAnnounce({ tone: "danger", text: errorText(e) })}
          />
        </div>
      ) : (
        <p className={styles.muted}>{t.security.recoveryNone}</p>
      )}
    </Card>
  );
}
