"use client";

import type { Branding, FormValues, Template } from "@clinsign/contracts";
import { Button, Notice, TextField } from "@clinsign/ui";
import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { formatDateTime } from "../../lib/dates";
import { describeApiError, readApiError } from "../../trpc/errors";
import { createPatientApi } from "../patient/api";
import { PatientShell } from "../patient/PatientShell";
import { ScreenHeading } from "../patient/ScreenHeading";
import { FormFill } from "./FormFill";
import { FormStatusScreen, type FormEnd, type FormStatus } from "./FormStatusScreen";
import { uploadFormFile } from "./uploads";
import styles from "./forms.module.css";

const RESEND_AFTER_SECONDS = 30;
const OTP_LIFETIME_MS = 10 * 60_000;

/** The ends an SMS link can reach before or instead of a submission made here. */
type End = Extract<FormEnd, "unknown" | "expired" | "locked" | "submitted" | "unavailable">;

type Step =
  | FormStatus
  | { kind: "identify"; notice?: string }
  | { kind: "otp"; sentAt: number }
  | { kind: "form"; template: Template; values: FormValues; language: string | null };

/** Links are 43 URL-safe characters; anything else cannot be one. */
const plausibleLink = (token: string) => /^[A-Za-z0-9_-]{16,200}$/.test(token);

/** Where an API refusal leaves the recipient. */
function endFor(error: unknown): End | null {
  const code = readApiError(error).code;
  if (code === "FORBIDDEN") return "locked";
  if (code === "CONFLICT") return "submitted";
  if (code === "NOT_FOUND") return "unknown";
  return null;
}

/**
 * `/f/<token>`, the link of an SMS form request: the recipient confirms case number and mobile
 * number (a wrong pair says how many tries remain; the fifth locks the link), enters the code
 * from a second SMS when the organization asks for it, fills in the form with the shared
 * renderer and autosave, and submits. The access lives in an HTTP-only cookie, so a reload
 * continues with the form.
 */
export function SmsForm({ linkToken }: { linkToken: string }) {
  const { t, locale } = usePatientI18n();
  const api = useMemo(() => createPatientApi({ url: "/f/trpc" }), []);
  const [step, setStep] = useState<Step>({ kind: "opening" });
  const [organizationName, setOrganizationName] = useState<string | null>(null);
  const [branding, setBranding] = useState<Branding | null>(null);
  const [expiresAt, setExpiresAt] = useState<string | null>(null);
  const [phoneCountry, setPhoneCountry] = useState<string | undefined>(undefined);
  const [attempt, setAttempt] = useState(0);
  const [acted, setActed] = useState(false);
  // The language the request was sent in: the form opens in it unless the draft remembers another.
  const presetLanguage = useRef<string | null>(null);
  const s = t.forms.sms;

  async function openForm() {
    const [template, draft] = await Promise.all([
      api.call("smsForm.template", { linkToken }),
      api.call("smsForm.loadDraft", { linkToken }),
    ]);
    setStep({
      kind: "form",
      template,
      values: draft?.values ?? {},
      language: draft?.language ?? presetLanguage.current,
    });
  }

  useEffect(() => {
    if (!plausibleLink(linkToken)) {
      setStep({ kind: "end", end: "unknown" });
      return;
    }
    let active = true;
    api
      .call("smsForm.open", { linkToken })
      .then(async (opened) => {
        if (!active) return;
        setOrganizationName(opened.organizationName);
        setBranding(opened.branding);
        setExpiresAt(opened.expiresAt);
        setPhoneCountry(opened.phoneCountry);
        presetLanguage.current = opened.language ?? null;
        if (opened.status === "expired" || opened.status === "locked" || opened.status === "submitted")
          setStep({ kind: "end", end: opened.status });
        else if (opened.hasAccess) await openForm();
        else setStep({ kind: "identify" });
      })
      .catch(
        (error: unknown) =>
          active && setStep(endFor(error) ? { kind: "end", end: endFor(error)! } : { kind: "failed", error }),
      );
    return () => {
      active = false;
    };
    // openForm only reads stable values.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, linkToken, attempt]);

  /** A refusal after the start: the end screen it means, or the identification again. */
  const refused = (error: unknown) => {
    setActed(true);
    const end = endFor(error);
    if (end) setStep({ kind: "end", end: end === "unknown" ? "unavailable" : end });
    else setStep({ kind: "identify", notice: s.accessEnded });
  };

  let content;
  switch (step.kind) {
    case "identify":
      content = (
        <IdentifyStep
          notice={step.notice}
          deadline={expiresAt ? format(t.forms.expiresAt, { date: formatDateTime(expiresAt, locale) }) : null}
          focus={acted}
          verify={async (rnummer, phone) => {
            setActed(true);
            const answer = await api.call("smsForm.verify", { linkToken, rnummer, phone });
            if (answer.otpRequired) setStep({ kind: "otp", sentAt: Date.now() });
            else await openForm();
          }}
          onEnd={(end) => setStep({ kind: "end", end })}
        />
      );
      break;
    case "otp":
      content = (
        <OtpStep
          sentAt={step.sentAt}
          check={async (code) => {
            await api.call("smsForm.checkOtp", { linkToken, code });
            await openForm();
          }}
          resend={async () => {
            await api.call("smsForm.resendOtp", { linkToken });
            setStep({ kind: "otp", sentAt: Date.now() });
          }}
          onEnd={(end) => setStep({ kind: "end", end })}
          onIdentifyAgain={() => setStep({ kind: "identify", notice: s.accessEnded })}
        />
      );
      break;
    case "form":
      content = (
        <FormFill
          template={step.template}
          initialValues={step.values}
          initialLanguage={step.language}
          expiresAt={expiresAt}
          phoneCountry={phoneCountry}
          saveDraft={(values, language) => api.call("smsForm.saveDraft", { linkToken, values, language })}
          onRejected={refused}
          uploadFile={(file, field, onProgress) =>
            uploadFormFile(file, {
              url: "/f/api/embed/uploads",
              headers: { "x-portal-link": linkToken },
              fields: {},
              fieldKey: field.key!,
              onProgress,
            })
          }
          submit={async (values, language) => {
            await api.call("smsForm.submit", { linkToken, values, language });
            setActed(true);
            setStep({ kind: "end", end: "done" });
          }}
        />
      );
      break;
    default:
      content = (
        <FormStatusScreen
          status={step}
          onRetry={() => (setStep({ kind: "opening" }), setAttempt((n) => n + 1))}
          organizationName={organizationName}
          focus={acted}
        />
      );
  }

  return (
    <PatientShell branding={branding} organizationName={organizationName} footer={t.patient.formsFooter}>
      {content}
    </PatientShell>
  );
}

function IdentifyStep({
  notice,
  deadline,
  focus,
  verify,
  onEnd,
}: {
  notice?: string;
  deadline: string | null;
  focus: boolean;
  verify(rnummer: string, phone: string): Promise<void>;
  onEnd(end: End): void;
}) {
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
      const api = readApiError(caught);
      const left = api.details.attemptsLeft;
      const end = endFor(caught);
      if (end) onEnd(end);
      else if (api.code === "UNAUTHORIZED" && typeof left === "number")
        setError(left === 1 ? s.mismatchOne : format(s.mismatch, { count: left }));
      else setError(describeApiError(api, t));
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

function OtpStep({
  sentAt,
  check,
  resend,
  onEnd,
  onIdentifyAgain,
}: {
  sentAt: number;
  check(code: string): Promise<void>;
  resend(): Promise<void>;
  onEnd(end: End): void;
  onIdentifyAgain(): void;
}) {
  const { t, locale } = usePatientI18n();
  const s = t.forms.sms;
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  const wait = Math.max(0, RESEND_AFTER_SECONDS - Math.floor((now - sentAt) / 1000));
  const validUntil = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit" }).format(
    new Date(sentAt + OTP_LIFETIME_MS),
  );

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
      const api = readApiError(caught);
      const left = api.details.attemptsLeft;
      const end = endFor(caught);
      if (end) onEnd(end);
      else if (api.code === "UNAUTHORIZED" && api.message.startsWith("enter the case number")) onIdentifyAgain();
      else if (api.code === "UNAUTHORIZED")
        setError(typeof left === "number" && left > 0 ? format(s.wrongCode, { count: left }) : s.codeEnded);
      else setError(describeApiError(api, t));
      setBusy(false);
    }
  }

  async function sendAgain() {
    setError(null);
    try {
      await resend();
      setCode("");
      setInfo(s.resent);
    } catch (caught) {
      const end = endFor(caught);
      if (end) onEnd(end);
      else setError(describeApiError(readApiError(caught), t));
    }
  }

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
