import { Card } from "@clinsign/ui";
import type { Dictionary } from "../../i18n";
import { VERIFY_SAMPLE } from "./events";
import styles from "./webhooks.module.css";

/** How a receiver checks a delivery (docs/forms-api.md, "Webhooks"). */
export function VerifyGuide({ w }: { w: Dictionary["webhooksPage"] }) {
  return (
    <Card title={w.verifyTitle} description={w.verifyIntro}>
      <ul className={styles.guide}>
        <li>{w.verifyServiceHeader}</li>
        <li>{w.verifyStandardHeaders}</li>
        <li>{w.verifyRetry}</li>
      </ul>
      <figure className={styles.sample}>
        <figcaption className="cs-hint">{w.codeCaption}</figcaption>
        <pre className={styles.json} tabIndex={0}>
          <code>{VERIFY_SAMPLE}</code>
        </pre>
      </figure>
    </Card>
  );
}
