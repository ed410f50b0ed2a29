"use client";

import { lazy, Suspense, useRef, useState, type RefObject } from "react";
import { Button } from "../Button";
import { Field } from "../Field";
import { useNearViewport } from "../near-viewport";
import { Segmented } from "../Segmented";
import type { SignaturePadHandle } from "../SignaturePad";
import type { FormRendererLabels } from "./labels";
import styles from "./FormRenderer.module.css";

const SIGNATURE_DATA_URL = /^data:image\/(png|jpeg|svg\+xml);base64,/;

// The pad and its drawing engine load when the field comes near the screen, not with the page:
// on a phone the signature is usually far down the form.
const SignaturePad = lazy(() => import("../SignaturePad").then((module) => ({ default: module.SignaturePad })));

/** A typed name drawn in a handwriting-like font as a PNG, the keyboard path to a signature. */
function typedSignature(name: string): string | null {
  const text = name.trim();
  if (!text) return null;
  const canvas = document.createElement("canvas");
  const context = canvas.getContext("2d");
  if (!context) return null;
  const font = 'italic 56px "Segoe Script", "Brush Script MT", "URW Chancery L", cursive';
  context.font = font;
  const width = Math.ceil(context.measureText(text).width) + 32;
  canvas.width = Math.min(width, 1600);
  canvas.height = 96;
  context.font = font;
  context.fillStyle = "#10213f";
  context.textBaseline = "middle";
  context.fillText(text, 16, 48, canvas.width - 32);
  return canvas.toDataURL("image/png");
}

interface SignatureInputProps {
  id: string;
  value: unknown;
  labels: FormRendererLabels["signature"];
  disabled: boolean;
  onChange(value: unknown): void;
  onBlur(): void;
}

/**
 * A signature field: drawn with the shared signature pad (strokes survive rotating the phone),
 * or a typed name for keyboard and screen-reader users. A signature already given (a restored
 * draft) is shown as an image with "Sign again".
 */
export function SignatureInput({ id, value, labels, disabled, onChange, onBlur }: SignatureInputProps) {
  const padRef = useRef<SignaturePadHandle>(null);
  const { ref: padArea, near } = useNearViewport<HTMLDivElement>();
  const [method, setMethod] = useState<"draw" | "type">("draw");
  const [typedName, setTypedName] = useState("");
  // A signature from an earlier visit cannot go back into the pad as strokes: show it instead.
  const [showStored, setShowStored] = useState(() => typeof value === "string" && SIGNATURE_DATA_URL.test(value));
  const stored = showStored && typeof value === "string" && SIGNATURE_DATA_URL.test(value) ? value : null;

  if (stored) {
    return (
      <StoredSignature
        id={id}
        image={stored}
        labels={labels}
        disabled={disabled}
        onSignAgain={() => {
          setShowStored(false);
          onChange("");
        }}
      />
    );
  }

  return (
    <div className={styles.signature}>
      <Segmented
        id={id}
        label={labels.methodLegend}
        name={`${id}-method`}
        value={method}
        disabled={disabled}
        options={[
          { value: "draw", label: labels.drawTab },
          { value: "type", label: labels.typeTab },
        ]}
        onChange={(option) => {
          setMethod(option);
          onChange(option === "type" ? (typedSignature(typedName) ?? "") : (padRef.current?.toPng() ?? ""));
        }}
      />
      {method === "draw" ? (
        <DrawnSignature
          padRef={padRef}
          padArea={padArea}
          near={near}
          labels={labels}
          disabled={disabled}
          onChange={onChange}
          onBlur={onBlur}
        />
      ) : (
        <TypedSignature
          id={`${id}-typed`}
          typedName={typedName}
          labels={labels}
          disabled={disabled}
          onType={(name) => {
            setTypedName(name);
            onChange(typedSignature(name) ?? "");
          }}
          onBlur={onBlur}
        />
      )}
    </div>
  );
}

/** A signature given on an earlier visit, as an image, and "Sign again" (which clears it). */
function StoredSignature({
  id,
  image,
  labels,
  disabled,
  onSignAgain,
}: {
  id: string;
  image: string;
  labels: FormRendererLabels["signature"];
  disabled: boolean;
  onSignAgain(): void;
}) {
  return (
    <div className={styles.signatureStored}>
      <img src={image} alt={labels.signed} className={styles.signatureImage} />
      <Button id={id} size="small" disabled={disabled} onClick={onSignAgain}>
        {labels.signAgain}
      </Button>
    </div>
  );
}

/** The pad, loaded once its area comes near the screen (a placeholder of its size until then). */
function DrawnSignature({
  padRef,
  padArea,
  near,
  labels,
  disabled,
  onChange,
  onBlur,
}: {
  padRef: RefObject<SignaturePadHandle | null>;
  /** The area watched for nearing the screen (kept by SignatureInput across a switch of method). */
  padArea: RefObject<HTMLDivElement | null>;
  near: boolean;
  labels: FormRendererLabels["signature"];
  disabled: boolean;
  onChange(value: unknown): void;
  onBlur(): void;
}) {
  return (
    <div ref={padArea} className={styles.padArea}>
      {near ? (
        <Suspense fallback={<div className={styles.padPlaceholder} aria-hidden="true" />}>
          <SignaturePad
            ref={padRef}
            labels={labels}
            hint={labels.hint}
            disabled={disabled}
            onChange={(hasInk) => {
              onChange(hasInk ? (padRef.current?.toPng() ?? "") : "");
              onBlur();
            }}
          />
        </Suspense>
      ) : (
        <div className={styles.padPlaceholder} aria-hidden="true" />
      )}
    </div>
  );
}

/** The typed name, with a preview in the signature's handwriting-like font. */
function TypedSignature({
  id,
  typedName,
  labels,
  disabled,
  onType,
  onBlur,
}: {
  id: string;
  typedName: string;
  labels: FormRendererLabels["signature"];
  disabled: boolean;
  onType(name: string): void;
  onBlur(): void;
}) {
  return (
    <Field id={id} label={labels.typedLabel}>
      {(attributes) => (
        <>
          <input
            {...attributes}
            className="cs-input"
            autoComplete="name"
            value={typedName}
            disabled={disabled}
            onChange={(event) => onType(event.target.value)}
            onBlur={onBlur}
          />
          {typedName.trim() ? (
            <p className={styles.typedPreview} aria-hidden="true">
              {typedName.trim()}
            </p>
          ) : null}
        </>
      )}
    </Field>
  );
}
