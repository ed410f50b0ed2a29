"use client";

import { Button, Icon } from "@clinsign/ui";
import styles from "./settings.module.css";

/** What the last save did, said beside the save button. */
export type SaveFeedback = { tone: "success" | "danger"; text: string } | null;

/**
 * A settings form's save button and, beside it, a polite status line: what the last save did,
 * or else a quieter `hint` (such as "unsaved changes"). The sticky bar of the main settings form
 * passes its own `className`; the smaller forms keep the plain row.
 */
export function SaveRow({
  feedback,
  hint = null,
  busy,
  saveLabel,
  className = styles.ssoSave,
  feedbackId,
}: {
  feedback: SaveFeedback;
  hint?: string | null;
  busy: boolean;
  saveLabel: string;
  className?: string;
  feedbackId?: string;
}) {
  return (
    <div className={className}>
      <p
        id={feedbackId}
        className={styles.feedback}
        role="status"
        aria-live="polite"
        data-tone={feedback?.tone ?? (hint ? "muted" : undefined)}
      >
        {feedback ? (
          <>
            <Icon name={feedback.tone === "success" ? "check" : "alert"} />
            <span>{feedback.text}</span>
          </>
        ) : (
          hint
        )}
      </p>
      <Button type="submit" variant="primary" busy={busy}>
        {saveLabel}
      </Button>
    </div>
  );
}
