"use client";

import type { FieldIssue, FieldProblem, FormField } from "@clinsign/contracts";
import type { Ref } from "react";
import { fieldControlId } from "./field-frame";
import type { FormRendererLabels } from "./labels";
import styles from "./FormRenderer.module.css";

/** "Name: Please answer…", or without the colon after a label that ends a question. */
const summaryLine = (label: string, message: string) =>
  /[?:!.]$/.test(label.trim()) ? `${label.trim()} ${message}` : `${label}: ${message}`;

/**
 * The problems above the fields after a failed submit, as an alert; each links to (and focuses)
 * its field's control.
 */
export function ErrorSummary({
  ref,
  idPrefix,
  issues,
  fieldOf,
  problemOf,
  labels,
}: {
  ref: Ref<HTMLDivElement>;
  idPrefix: string;
  /** The problems still open, each of a shown field. */
  issues: readonly FieldIssue[];
  fieldOf(key: string): FormField;
  /** The field's problem as it stands now (it may differ from the one found at submit). */
  problemOf(field: FormField): FieldProblem | null;
  labels: FormRendererLabels;
}) {
  return (
    <div ref={ref} className={styles.summary} role="alert" tabIndex={-1} aria-labelledby={`${idPrefix}-summary-title`}>
      <p id={`${idPrefix}-summary-title`} className={styles.summaryTitle}>
        {labels.errorSummaryTitle}
      </p>
      <ul>
        {issues.map((issue) => {
          const field = fieldOf(issue.key);
          return (
            <li key={issue.key}>
              <a
                href={`#${fieldControlId(idPrefix, issue.key)}`}
                onClick={(event) => {
                  event.preventDefault();
                  document.getElementById(fieldControlId(idPrefix, issue.key))?.focus();
                }}
              >
                {summaryLine(field.label || issue.key, labels.problem(problemOf(field) ?? issue, field))}
              </a>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
