"use client";

import { Button, Notice, TextField } from "@clinsign/ui";
import { useEffect, useState, type FormEvent } from "react";
import { format, type PatientDictionary } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { describeApiError, readApiError } from "../../trpc/errors";
import { ScreenHeading } from "../patient/ScreenHeading";
import { endFor, type End } from "./sms-form-state";
import styles from "./forms.module.css";

const RESEND_AFTER_SECONDS = 30;
const OTP_LIFETIME_MS = 10 * 60_000;

interface IdentifyStepProps {
  notice?: string;
  deadline: string | null;
  focus: boolean;
  verify(rnummer: string, phone: string): Promise<void>;
  onEnd(end: End): void;
}

/** The recipient confirms case number and mobile number; a wrong pair says how many tries remain. */
export function IdentifyStep({ notice, deadline, focus, verify, onEnd }: IdentifyStepProps) {
  const { t } = usePatientI18n();
  const s = t.forms.sms;
  const [rnummer, setRnummer] = useState("");
  const [phone, setPhone] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState<{ rnummer?: boolean; phone?: boolean }>({});
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const absent = { rnummer: !rnummer.trim(), phone: !phone.trim() };
    setMissing(absent);
    if (absent.rnummer || absent.phone) return;
    setBusy(true);
    setError(null);
    try {
      await verify(rnummer.trim(), phone.trim());
    } catch (caught) {
      const refusal = identifyRefusal(caught, t);
      if ("end" in refusal) onEnd(refusal.end);
      else setError(refusal.problem);
      setBusy(false);
    }
  }

  return (
    <section className={styles.steps} aria-labelledby="portal-heading">
      <ScreenHeading focus={focus}>{s.identifyTitle}</ScreenHeading>
      <p>{s.identifyIntro}</p>
      {deadline ? <p className="cs-hint">{deadline}</p> : null}
      {notice ? <Notice tone="info">{notice}</Notice> : null}
      <form onSubmit={submit} noValidate>
        <TextField
          label={s.rnummerLabel}
          hint={s.rnummerHint}
          name="rnummer"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          value={rnummer}
          onChange={(event) => setRnummer(event.target.value)}
          error={missing.rnummer ? t.forms.problems.required : null}
          required
        />
        <TextField
          label={s.phoneLabel}
          hint={s.phoneHint}
          name="phone"
          type="tel"
          inputMode="tel"
          autoComplete="tel"
          value={phone}
          onChange={(event) => setPhone(event.target.value)}
          error={missing.phone ? t.forms.problems.required : null}
          required
        />
        <div role="alert" className={styles.alertSlot}>
          {error ? <Notice tone="danger">{error}</Notice> : null}
        </div>
        <div className={styles.row}>
          <Button type="submit" variant="primary" busy={busy}>
            {s.identifyButton}
          </Button>
        </div>
      </form>
    </section>
  );
}

interface OtpStepProps {
  sentAt: number;
  check(code: string): Promise<void>;
  resend(): Promise<void>;
  onEnd(end: End): void;
  onIdentifyAgain(): void;
}

/** The code from a second SMS, when the organization asks for one; sent again on request after 30 s. */
export function OtpStep({ sentAt, ...calls }: OtpStepProps) {
  const { t } = usePatientI18n();
  const s = t.forms.sms;
  const { code, setCode, error, info, busy, submit, sendAgain } = useOtpEntry(calls);
  const { wait, validUntil } = useOtpCountdown(sentAt);

  return (
    <section className={styles.steps} aria-labelledby="portal-heading">
      <ScreenHeading focus>{s.otpTitle}</ScreenHeading>
      <p>{s.otpIntro}</p>
      <form onSubmit={submit} noValidate>
        <TextField
          label={s.otpLabel}
          hint={format(s.otpExpires, { time: validUntil })}
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]*"
          maxLength={6}
          className={styles.otpField}
          value={code}
          onChange={(event) => setCode(event.target.value.replace(/\D/g, "").slice(0, 6))}
          error={error}
          required
        />
        <p role="status" className="cs-hint">
          {info ?? (wait > 0 ? format(s.resendIn, { seconds: wait }) : "")}
        </p>
        <div className={styles.row}>
          <Button type="submit" variant="primary" busy={busy}>
            {s.otpButton}
          </Button>
          <Button onClick={sendAgain} disabled={wait > 0}>
            {s.resend}
          </Button>
        </div>
      </form>
    </section>
  );
}

/** The code as typed, its check and sending it again, with what the recipient is told of either. */
function useOtpEntry({ check, resend, onEnd, onIdentifyAgain }: Omit<OtpStepProps, "sentAt">) {
  const { t } = usePatientI18n();
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!/^\d{6}$/.test(code)) {
      setError(t.forms.problems.required);
      return;
    }
    setBusy(true);
    setError(null);
    setInfo(null);
    try {
      await check(code);
    } catch (caught) {
      const refusal = otpRefusal(caught, t);
      if ("end" in refusal) onEnd(refusal.end);
      else if ("problem" in refusal) setError(refusal.problem);
      else onIdentifyAgain();
      setBusy(false);
    }
  }

  async function sendAgain() {
    setError(null);
    try {
      await resend();
      setCode("");
      setInfo(t.forms.sms.resent);
    } catch (caught) {
      const end = endFor(caught);
      if (end) onEnd(end);
      else setError(describeApiError(readApiError(caught), t));
    }
  }

  return { code, setCode, error, info, busy, submit, sendAgain };
}

/** The seconds until the code may be sent again (ticking), and the time it stops working. */
function useOtpCountdown(sentAt: number) {
  const { locale } = usePatientI18n();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const wait = Math.max(0, RESEND_AFTER_SECONDS - Math.floor((now - sentAt) / 1000));
  const validUntil = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit" }).format(
    new Date(sentAt + OTP_LIFETIME_MS),
  );
  return { wait, validUntil };
}

/** What a refused pair means: an end of the link, or a problem to show (with the tries left). */
function identifyRefusal(caught: unknown, t: PatientDictionary): { end: End } | { problem: string } {
  const api = readApiError(caught);
  const left = api.details.attemptsLeft;
  const end = endFor(caught);
  if (end) return { end };
  if (api.code === "UNAUTHORIZED" && typeof left === "number")
    return { problem: left === 1 ? t.forms.sms.mismatchOne : format(t.forms.sms.mismatch, { count: left }) };
  return { problem: describeApiError(api, t) };
}

/**
 * What a refused code means: an end of the link, the identification again (the access it was
 * sent for has ended), or a problem to show under the code (tries left, or the code is used up).
 */
function otpRefusal(
  caught: unknown,
  t: PatientDictionary,
): { end: End } | { identifyAgain: true } | { problem: string } {
  const api = readApiError(caught);
  const left = api.details.attemptsLeft;
  const end = endFor(caught);
  if (end) return { end };
  if (api.code === "UNAUTHORIZED" && api.message.startsWith("enter the case number")) return { identifyAgain: true };
  if (api.code === "UNAUTHORIZED")
    return {
      problem:
        typeof left === "number" && left > 0 ? format(t.forms.sms.wrongCode, { count: left }) : t.forms.sms.codeEnded,
    };
  return { problem: describeApiError(api, t) };
}
