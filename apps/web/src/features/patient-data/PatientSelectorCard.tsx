"use client";

import { Button, Card, Icon, TextField } from "@clinsign/ui";
import type { FormEvent, RefObject } from "react";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/I18nProvider";
import { selectorFields, type SelectorErrors, type SelectorField, type SelectorValues } from "./erasure-flow";
import styles from "./patient-data.module.css";

interface PatientSelectorCardProps {
  values: SelectorValues;
  fieldErrors: SelectorErrors;
  /** A report or a receipt is shown: the names stay as checked until "start over". */
  locked: boolean;
  /** The receipt is shown: the next patient starts from empty fields. */
  erased: boolean;
  /** The server found no phone number in the one entered. */
  phoneRefused: boolean;
  checking: boolean;
  /** The dry run's failure. */
  error: unknown;
  firstField: RefObject<HTMLInputElement | null>;
  phoneField: RefObject<HTMLInputElement | null>;
  onChange(field: SelectorField, value: string): void;
  onCheck(event: FormEvent<HTMLFormElement>): void;
  onStartOver(): void;
}

/** Who the patient is: patient ID, case number, mobile number; "Check what is held", then "start over". */
export function PatientSelectorCard(props: PatientSelectorCardProps) {
  const { values, fieldErrors, locked, erased, phoneRefused, checking, error, firstField, phoneField } = props;
  const { t } = useI18n();
  return (
    <Card title={t.patientData.selectorTitle} description={t.patientData.selectorDescription}>
      <form onSubmit={props.onCheck} noValidate>
        <div className={styles.form}>
          {selectorFields.map((name, index) => (
            <TextField
              key={name}
              ref={index === 0 ? firstField : name === "phone" ? phoneField : undefined}
              name={name}
              label={t.patientData[`${name}Label`]}
              hint={t.patientData[`${name}Hint`]}
              autoComplete="off"
              inputMode={name === "phone" ? "tel" : undefined}
              mono={name !== "rnummer"}
              value={values[name]}
              readOnly={locked}
              onChange={(event) => props.onChange(name, event.currentTarget.value)}
              error={fieldErrors[name] ?? (name === "phone" && phoneRefused ? t.patientData.phoneInvalid : null)}
            />
          ))}
        </div>
        <div className={styles.actions}>
          {locked ? (
            // Keyed apart from the submit button: React must not turn this very element into it
            // during the click, or the browser would submit the form with the click's default action.
            <Button key="start-over" type="button" variant="secondary" onClick={props.onStartOver}>
              {erased ? t.patientData.startOver : t.patientData.changeSelector}
            </Button>
          ) : (
            <Button key="check" type="submit" variant="primary" icon={<Icon name="refresh" />} busy={checking}>
              {t.patientData.checkButton}
            </Button>
          )}
        </div>
      </form>
      <ErrorNotice error={error} fields={selectorFields} />
    </Card>
  );
}
