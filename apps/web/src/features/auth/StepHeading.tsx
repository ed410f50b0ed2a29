import { Button } from "@clinsign/ui";
import type { ReactNode } from "react";
import { useI18n } from "../../i18n/I18nProvider";
import styles from "./LoginForm.module.css";

/** A sign-in step's title and the sentence under it. */
export function StepHeading({ title, subtitle }: { title: string; subtitle: string }) {
  return (
    <div className={styles.heading}>
      <h1>{title}</h1>
      <p className={styles.subtitle}>{subtitle}</p>
    </div>
  );
}

/** The step's other ways on, under it; the last one leads back (`backLabel`, else to the e-mail and password). */
export function StepAlternatives({
  backLabel,
  onBack,
  children,
}: {
  backLabel?: string;
  onBack: () => void;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  return (
    <div className={styles.alternatives}>
      {children}
      <Button variant="ghost" size="small" onClick={onBack}>
        {backLabel ?? t.login.backToPassword}
      </Button>
    </div>
  );
}
