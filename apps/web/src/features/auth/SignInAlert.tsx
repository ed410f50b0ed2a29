import { LiveRegion, Notice } from "@clinsign/ui";
import styles from "./LoginForm.module.css";

/** The sign-in card's one error slot, announced as it appears (every step uses it). */
export function SignInAlert({ message }: { message: string | null }) {
  return (
    <LiveRegion politeness="assertive" className={styles.alertSlot}>
      {message ? (
        <Notice tone="danger" role="alert">
          <span data-testid="login-error">{message}</span>
        </Notice>
      ) : null}
    </LiveRegion>
  );
}
