"use client";

import type { SignInput, SigningState } from "@clinsign/contracts";
import { Button, LiveRegion, Notice, TextField } from "@clinsign/ui";
import type { SignaturePadHandle, SignaturePadLabels } from "@clinsign/ui/signature-pad";
import { useMutation } from "@tanstack/react-query";
import { lazy, Suspense, useMemo, useRef, useState, type FormEvent, type RefObject } from "react";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { useHydrated } from "../../lib/use-hydrated";
import { describeApiError, readApiError } from "../../trpc/errors";
import { closedState } from "./closed-state";
import styles from "./signing.module.css";

type Method = "draw" | "type";

// The pad and its drawing engine are not part of the page's first load: their chunk is fetched
// right after hydration, while the patient reads (page 1 is in the first HTML already). If the
// chunk cannot be fetched, typing the name still signs.
const SignaturePad = lazy(() =>
  import("@clinsign/ui/signature-pad").then(
    (module) => ({ default: module.SignaturePad }),
    () => ({ default: PadUnavailable }),
  ),
);

function PadUnavailable() {
  const { t } = usePatientI18n();
  return (
    <Notice tone="warning" role="alert">
      {t.errors.network}
    </Notice>
  );
}

/** What a signature form sends: the consent and the signature (the caller adds whose it is). */
export type SignatureSubmission = Pick<SignInput, "consent" | "signature">;
/** `signed`: several signers, and others still have to sign; `held`: kept on the device until online. */
export type SignOutcome = "sealing" | "completed" | "signed" | "held";

export interface SignFormProps {
  /**
   * Sends the signature: the patient page with its signing pass (`signing.sign`), the console
   * with the staff session (`signatures.signAsStaff`). Errors come back as API errors.
   */
  submit(input: SignatureSubmission): Promise<{ state: SignOutcome }>;
  onSigned(state: SignOutcome): void;
  /** The request can no longer be signed (expired, declined, withdrawn meanwhile). */
  onClosed(state: SigningState): void;
  onSessionEnded(): void;
  onDecline(): void;
}

/**
 * Draw or type the signature, consent, sign. The Sign button is enabled once there is ink (or a
 * name) and consent; a click while a submission is under way does nothing (and the API signs
 * only once anyway). The typed name is the keyboard and screen-reader path.
 */
export function SignForm(props: SignFormProps) {
  const { t } = usePatientI18n();
  const [method, setMethod] = useState<Method>("draw");
  const [hasInk, setHasInk] = useState(false);
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | null>(null);
  const [consent, setConsent] = useState(false);
  const padRef = useRef<SignaturePadHandle>(null);
  const { send, busy, error } = useSignatureSending(props, () => setNameError(t.signing.nameRequired));

  const hasSignature = method === "draw" ? hasInk : name.trim().length > 0;
  const ready = hasSignature && consent;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!ready) return;
    send(() => {
      if (method === "type") return { kind: "typed", name: name.trim() };
      const dataUrl = padRef.current?.toPng() ?? "";
      return dataUrl ? { kind: "drawn", dataUrl } : null;
    });
  }

  return (
    <section className={styles.section} aria-labelledby="sign-heading">
      {/* Focusable for "Go to the signature" (DocumentView). */}
      <h2 id="sign-heading" tabIndex={-1} className={styles.focusTarget}>
        {t.signing.signHeading}
      </h2>
      <form className={styles.signForm} onSubmit={onSubmit} noValidate>
        <MethodChoice method={method} onChange={setMethod} disabled={busy} />
        {/* Both stay mounted: switching back keeps the drawing or the name. */}
        <DrawnSignature hidden={method !== "draw"} padRef={padRef} onInk={setHasInk} disabled={busy} />
        <TypedSignature
          hidden={method !== "type"}
          name={name}
          error={nameError}
          disabled={busy}
          onChange={(value) => {
            setName(value);
            setNameError(null);
          }}
        />

        <label className={styles.consent}>
          <input
            type="checkbox"
            name="consent"
            checked={consent}
            onChange={(event) => setConsent(event.currentTarget.checked)}
            disabled={busy}
          />
          <span>{t.signing.consent}</span>
        </label>

        <LiveRegion politeness="assertive" className={styles.alertSlot}>
          {error ? (
            <Notice tone="danger" role="alert" title={t.signing.signFailed}>
              {error}
            </Notice>
          ) : null}
        </LiveRegion>

        <SignActions ready={ready} busy={busy} />
      </form>
      <div className={styles.declineRow}>
        <Button variant="ghost" onClick={props.onDecline} disabled={busy}>
          {t.signing.declineButton}
        </Button>
      </div>
    </section>
  );
}

/**
 * Sends the signature through `submit`, once: while a submission is under way another does
 * nothing. A pass that ended or a request closed meanwhile goes to the caller; a rejected name
 * to `onNameRejected`; any other error is shown.
 */
function useSignatureSending(
  { submit, onSigned, onClosed, onSessionEnded }: SignFormProps,
  onNameRejected: () => void,
) {
  const { t } = usePatientI18n();
  const [error, setError] = useState<string | null>(null);
  const inFlight = useRef(false);
  // "always": offline, `submit` itself decides (the patient page holds the signature on the
  // device); TanStack's default would pause the call until the browser is online again.
  const sign = useMutation({ mutationFn: submit, networkMode: "always" });

  /** `read` gives the signature, or null when the pad has nothing to send. */
  function send(read: () => SignatureSubmission["signature"] | null) {
    if (inFlight.current) return;
    const signature = read();
    if (!signature) return;
    inFlight.current = true;
    setError(null);
    sign.mutate(
      { consent: true, signature },
      {
        onSuccess: (result) => onSigned(result.state),
        onError: (cause) => {
          inFlight.current = false;
          const apiError = readApiError(cause);
          const closed = closedState(apiError);
          if (apiError.code === "UNAUTHORIZED") onSessionEnded();
          else if (closed) onClosed(closed);
          else if (apiError.fieldErrors.some((issue) => issue.key.startsWith("signature.name"))) onNameRejected();
          else setError(describeApiError(apiError, t));
        },
      },
    );
  }

  return { send, error, busy: sign.isPending || sign.isSuccess };
}

/** Draw or type: two radio buttons drawn as a segmented control. */
function MethodChoice({
  method,
  onChange,
  disabled,
}: {
  method: Method;
  onChange(method: Method): void;
  disabled: boolean;
}) {
  const { t } = usePatientI18n();
  return (
    <fieldset className={styles.methods}>
      <legend className="cs-label">{t.signing.methodLegend}</legend>
      <div className={styles.segmented}>
        {(["draw", "type"] as const).map((value) => (
          <label key={value} className={styles.segment}>
            <input
              type="radio"
              name="signatureMethod"
              value={value}
              checked={method === value}
              onChange={() => onChange(value)}
              disabled={disabled}
            />
            <span>{value === "draw" ? t.signing.methodDraw : t.signing.methodType}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The signature pad, loaded when it comes near the screen or the browser is idle. */
function DrawnSignature({
  hidden,
  padRef,
  onInk,
  disabled,
}: {
  hidden: boolean;
  padRef: RefObject<SignaturePadHandle | null>;
  onInk(hasInk: boolean): void;
  disabled: boolean;
}) {
  const { t } = usePatientI18n();
  // Right after hydration: the pad's chunk is fetched while the patient reads (waiting for the
  // browser to be idle left it to a slow phone's busy main thread, ~3 s; docs/performance.md).
  const hydrated = useHydrated();
  const padLabels: SignaturePadLabels = useMemo(
    () => ({
      canvas: t.signing.padLabel,
      clear: t.signing.padClear,
      undo: t.signing.padUndo,
      drawn: t.signing.padDrawn,
      cleared: t.signing.padCleared,
    }),
    [t],
  );
  return (
    <div hidden={hidden}>
      {hydrated ? (
        <Suspense fallback={<div className={styles.padPlaceholder} aria-hidden="true" />}>
          <SignaturePad ref={padRef} labels={padLabels} hint={t.signing.padHint} onChange={onInk} disabled={disabled} />
        </Suspense>
      ) : (
        <div className={styles.padPlaceholder} aria-hidden="true" />
      )}
    </div>
  );
}

/** The typed name, with a visual echo of it. */
function TypedSignature({
  hidden,
  name,
  error,
  disabled,
  onChange,
}: {
  hidden: boolean;
  name: string;
  error: string | null;
  disabled: boolean;
  onChange(name: string): void;
}) {
  const { t } = usePatientI18n();
  return (
    <div hidden={hidden}>
      <div className={styles.typed}>
        <TextField
          label={t.signing.typedLabel}
          hint={t.signing.typedHint}
          name="typedName"
          autoComplete="name"
          maxLength={120}
          value={name}
          disabled={disabled}
          error={error}
          onChange={(event) => onChange(event.currentTarget.value)}
        />
        {name.trim() ? (
          // A visual echo of the input (which screen readers already read).
          <div className={styles.typedPreview} aria-hidden="true">
            <span className="cs-hint">{t.signing.typedPreview}</span>
            <span className={styles.typedPreviewName}>{name.trim()}</span>
          </div>
        ) : null}
      </div>
    </div>
  );
}

/** The Sign button, and what it still needs while it is disabled. */
function SignActions({ ready, busy }: { ready: boolean; busy: boolean }) {
  const { t } = usePatientI18n();
  return (
    <div className={styles.signActions}>
      <Button
        type="submit"
        variant="primary"
        block
        busy={busy}
        disabled={!ready}
        aria-describedby={!ready ? "sign-requirements" : undefined}
      >
        {busy ? t.signing.signing : t.signing.signButton}
      </Button>
      {!ready ? (
        <p id="sign-requirements" className="cs-hint">
          {t.signing.signRequirements}
        </p>
      ) : null}
    </div>
  );
}
