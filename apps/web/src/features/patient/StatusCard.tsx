"use client";

import type { ReactNode } from "react";
import { ScreenHeading } from "./ScreenHeading";
import styles from "./patient.module.css";

export type StatusTone = "neutral" | "success" | "warning" | "danger";

/**
 * A screen that ends a patient flow or cannot start it (expired, locked, done, unknown link):
 * an icon, a heading that says what happened, what to do now, and an optional action.
 */
export function StatusCard({
  title,
  body,
  tone,
  icon,
  state,
  action,
  focus,
}: {
  title: string;
  body: ReactNode;
  tone: StatusTone;
  icon: ReactNode;
  /** For tests and styling: which state this is. */
  state?: string;
  action?: ReactNode;
  focus?: boolean;
}) {
  return (
    <section className={styles.stateCard} data-tone={tone} data-state={state} aria-labelledby="portal-heading">
      <span className={styles.stateIcon} aria-hidden="true">
        {icon}
      </span>
      <ScreenHeading focus={focus}>{title}</ScreenHeading>
      <div className={styles.stateBody}>{body}</div>
      {action ? <div className={styles.stateAction}>{action}</div> : null}
    </section>
  );
}
