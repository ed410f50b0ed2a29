"use client";

import { Button, Notice } from "@clinsign/ui";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { describeApiError, readApiError } from "../../trpc/errors";
import { ScreenHeading } from "./ScreenHeading";
import styles from "./patient.module.css";

/** While a patient page opens its link or session. */
export function OpeningScreen({ text }: { text: string }) {
  return (
    <div className={styles.opening} aria-busy="true">
      <span className="cs-spinner" aria-hidden="true" />
      <p role="status">{text}</p>
    </div>
  );
}

/** A page that could not load (network, server): what happened and "Try again". */
export function LoadFailedScreen({ title, error, onRetry }: { title: string; error: unknown; onRetry(): void }) {
  const { t } = usePatientI18n();
  return (
    <section className={styles.stateCard} data-tone="danger" aria-labelledby="portal-heading">
      <ScreenHeading>{title}</ScreenHeading>
      <Notice tone="danger" role="alert">
        {describeApiError(readApiError(error), t)}
      </Notice>
      <div className={styles.stateAction}>
        <Button variant="primary" onClick={onRetry}>
          {t.common.retry}
        </Button>
      </div>
    </section>
  );
}
