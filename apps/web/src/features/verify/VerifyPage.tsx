"use client";

import type { VerifyChanges, VerifyResult } from "@clinsign/contracts";
import { Button, Fact, Facts, Notice } from "@clinsign/ui";
import { useState, type DragEvent } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { CheckIcon, CrossIcon } from "../patient/icons";
import { PatientShell } from "../patient/PatientShell";
import { ScreenHeading } from "../patient/ScreenHeading";
import patientStyles from "../patient/patient.module.css";
import styles from "./verify.module.css";
import { verifyRefusal, type VerifyErrorBody, type VerifyRefusal } from "./verify-refusal";

/** The API's cap (the upload cap): a larger file is refused here before a byte is sent. */
const MAX_MB = 25;

type State =
  | { step: "choose"; error: string | null }
  | { step: "checking"; name: string }
  | { step: "done"; name: string; result: VerifyResult };

type Outcome = keyof ReturnType<typeof usePatientI18n>["t"]["verify"]["titles"];

function outcomeOf(result: VerifyResult): Outcome {
  if (result.status === "unsigned") return "unsigned";
  if (result.modifiedAfterSealing) return "modified";
  if (result.updatedAfterSealing || !result.intact) return "updated";
  return result.sealedByThisService ? "intact" : "intactForeign";
}

/**
 * `/verify`: anyone drops a PDF and learns whether this service sealed it, whether it is intact,
 * who sealed it and when, its PAdES level and what changed. The drop zone is the label of a real
 * file input, so keyboard and screen-reader users choose the file as they would anywhere else.
 */
export function VerifyPage() {
  const { t, locale } = usePatientI18n();
  const v = t.verify;
  const [state, setState] = useState<State>({ step: "choose", error: null });
  const formatTime = (iso: string) =>
    new Intl.DateTimeFormat(locale, { dateStyle: "long", timeStyle: "long" }).format(new Date(iso));
  const refusalText = (refusal: VerifyRefusal) =>
    refusal === "tooLarge" ? format(v.errors.tooLarge, { size: MAX_MB }) : v.errors[refusal];

  async function check(file: File) {
    if (file.size > MAX_MB * 1024 * 1024) return setState({ step: "choose", error: refusalText("tooLarge") });
    setState({ step: "checking", name: file.name });
    let response: Response;
    try {
      response = await fetch("/api/verify", {
        method: "POST",
        body: file,
        headers: { "content-type": "application/pdf" },
      });
    } catch {
      return setState({ step: "choose", error: v.errors.failed });
    }
    if (response.ok)
      return setState({ step: "done", name: file.name, result: (await response.json()) as VerifyResult });
    const body = (await response.json().catch(() => null)) as VerifyErrorBody | null;
    setState({ step: "choose", error: refusalText(verifyRefusal(response.status, body)) });
  }

  return (
    <PatientShell branding={null} organizationName={null}>
      <div className={styles.page}>
        {state.step === "done" ? (
          <ResultCard
            name={state.name}
            result={state.result}
            formatTime={formatTime}
            onAnother={() => setState({ step: "choose", error: null })}
          />
        ) : (
          <ChooseFileCard
            checking={state.step === "checking" ? state.name : null}
            error={state.step === "choose" ? state.error : null}
            onFile={(file) => void check(file)}
          />
        )}
      </div>
    </PatientShell>
  );
}

/**
 * The start: what the page does, and the file input with its drop zone; while a file is checked,
 * a spinner that says which.
 */
function ChooseFileCard({
  checking,
  error,
  onFile,
}: {
  /** The name of the file being checked; null while none is. */
  checking: string | null;
  error: string | null;
  onFile(file: File): void;
}) {
  const v = usePatientI18n().t.verify;
  const [dragging, setDragging] = useState(false);

  function drop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file) onFile(file);
  }

  return (
    <section className={styles.card} aria-labelledby="portal-heading">
      <ScreenHeading>{v.heading}</ScreenHeading>
      <p className={styles.intro}>{v.intro}</p>
      {checking !== null ? (
        <div className={patientStyles.opening} aria-busy="true">
          <span className="cs-spinner" aria-hidden="true" />
          <p role="status">{format(v.checking, { name: checking })}</p>
        </div>
      ) : (
        <>
          <input
            id="verify-file"
            name="file"
            type="file"
            accept="application/pdf,.pdf"
            className={styles.fileInput}
            aria-describedby={`verify-file-hint${error ? " verify-file-error" : ""}`}
            aria-invalid={error ? true : undefined}
            onChange={(event) => {
              const file = event.target.files?.[0];
              event.target.value = "";
              if (file) onFile(file);
            }}
          />
          <label
            className={styles.dropZone}
            data-dragging={dragging || undefined}
            htmlFor="verify-file"
            onDragOver={(event) => {
              event.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={drop}
          >
            <span className={styles.dropTitle}>{v.fileLabel}</span>
            <span id="verify-file-hint" className="cs-hint">
              {format(v.dropHint, { size: MAX_MB })}
            </span>
          </label>
          {error ? (
            <Notice tone="danger" role="alert">
              <span id="verify-file-error">{error}</span>
            </Notice>
          ) : null}
        </>
      )}
    </section>
  );
}

const CHANGE_KEYS: (keyof VerifyChanges)[] = [
  "pagesAdded",
  "pagesRemoved",
  "annotationsAdded",
  "formFieldsAdded",
  "signaturesAdded",
  "otherObjectsChanged",
];

function ResultCard({
  name,
  result,
  formatTime,
  onAnother,
}: {
  name: string;
  result: VerifyResult;
  formatTime: (iso: string) => string;
  onAnother(): void;
}) {
  const { t } = usePatientI18n();
  const v = t.verify;
  const outcome = outcomeOf(result);
  const good = outcome === "intact";
  const tone = good ? "success" : outcome === "intactForeign" || outcome === "unsigned" ? "warning" : "danger";
  const changes = result.changes ? CHANGE_KEYS.filter((key) => result.changes![key] > 0) : [];
  return (
    <section className={styles.card} data-tone={tone} data-outcome={outcome} aria-labelledby="portal-heading">
      <div className={styles.resultHead}>
        <span className={styles.resultIcon} aria-hidden="true">
          {good ? <CheckIcon /> : <CrossIcon />}
        </span>
        <div>
          <p className="cs-hint">{format(v.resultFor, { name })}</p>
          <ScreenHeading focus>{v.titles[outcome]}</ScreenHeading>
        </div>
      </div>
      <p>{v.bodies[outcome === "intactForeign" ? "intactForeign" : outcome]}</p>
      {changes.length > 0 ? (
        <ul className={styles.changes}>
          {changes.map((key) => (
            <li key={key}>{format(v.changes[key], { count: result.changes![key] })}</li>
          ))}
        </ul>
      ) : null}
      {result.status === "sealed" && !result.sealedByThisService && outcome !== "intactForeign" ? (
        <p>{v.bodies.notOurs}</p>
      ) : null}
      {result.status === "sealed" ? (
        <Facts className={styles.facts}>
          <Fact term={v.facts.ourService}>{result.sealedByThisService ? v.facts.yes : v.facts.no}</Fact>
          {result.signer ? (
            <>
              <Fact term={v.facts.sealedBy}>{result.signer.subject}</Fact>
              <Fact term={v.facts.issuer}>{result.signer.issuer}</Fact>
            </>
          ) : null}
          {result.sealedAt ? (
            <Fact term={v.facts.sealedAt}>
              {formatTime(result.sealedAt.at)}
              <span className={styles.source}>{v.sources[result.sealedAt.source]}</span>
            </Fact>
          ) : null}
          {result.padesLevel ? <Fact term={v.facts.level}>{v.levels[result.padesLevel]}</Fact> : null}
          {result.request ? (
            <>
              <Fact term={v.facts.request} className={styles.mono}>
                {result.request.signatureId}
              </Fact>
              <Fact term={v.facts.document} className={styles.mono}>
                {format(v.facts.documentVersion, {
                  id: result.request.documentId,
                  version: result.request.documentVersion,
                })}
              </Fact>
            </>
          ) : null}
          {result.signer ? (
            <Fact term={v.facts.fingerprint} className={styles.mono}>
              {result.signer.fingerprint}
            </Fact>
          ) : null}
        </Facts>
      ) : null}
      <div>
        <Button variant="primary" onClick={onAnother}>
          {v.checkAnother}
        </Button>
      </div>
    </section>
  );
}
