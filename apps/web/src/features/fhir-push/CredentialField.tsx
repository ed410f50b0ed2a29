"use client";

import { Button, Field, Icon, TextField } from "@clinsign/ui";
import type { Dictionary } from "../../i18n";
import type { CredentialKind } from "./fhir-push-form";
import type { CredentialState } from "./fhir-push-reducer";
import styles from "./fhir-push.module.css";

/**
 * The FHIR server's credential: the bearer token or client secret as a password field, a SMART
 * client's PEM key as a text area. A stored one is only said to be there (it never comes back
 * from the server), with "Replace"; opened, an empty field keeps it.
 */
export function CredentialField({
  kind,
  state,
  value,
  error,
  f,
  onChange,
  onReplace,
  onKeep,
}: {
  kind: CredentialKind;
  state: Exclude<CredentialState, "none">;
  value: string;
  error: string | undefined;
  f: Dictionary["fhirPush"];
  onChange(value: string): void;
  onReplace(): void;
  onKeep(): void;
}) {
  if (state === "stored")
    return (
      <div className={styles.stored} data-testid="fhir-credential-stored">
        <Icon name="key" />
        <div className={styles.storedText}>
          <p className={styles.storedTitle}>{f.credentialStored[kind]}</p>
          <p className="cs-hint">{f.credentialStoredHint}</p>
        </div>
        <Button size="small" onClick={onReplace}>
          {f.replaceCredential}
        </Button>
      </div>
    );
  const hint = state === "replace" ? `${f.credentialHints[kind]} ${f.replaceHint}` : f.credentialHints[kind];
  const field = { label: f.credentialLabels[kind], hint, error, value };
  return (
    <div className="cs-stack">
      {kind === "privateKey" ? (
        <Field label={field.label} hint={field.hint} error={field.error}>
          {(control) => (
            <textarea
              {...control}
              name="fhirPrivateKey"
              className={`cs-input cs-input--mono ${styles.pem}`}
              rows={6}
              spellCheck={false}
              autoComplete="off"
              autoCapitalize="none"
              placeholder="-----BEGIN PRIVATE KEY-----"
              value={value}
              onChange={(event) => onChange(event.currentTarget.value)}
            />
          )}
        </Field>
      ) : (
        <TextField
          {...field}
          name="fhirSecret"
          type="password"
          autoComplete="new-password"
          spellCheck={false}
          mono
          onChange={(event) => onChange(event.currentTarget.value)}
        />
      )}
      {state === "replace" ? (
        <div>
          <Button size="small" variant="ghost" onClick={onKeep}>
            {f.keepCredential}
          </Button>
        </div>
      ) : null}
    </div>
  );
}
