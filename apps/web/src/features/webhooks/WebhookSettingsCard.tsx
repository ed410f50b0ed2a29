"use client";

import { Badge, Card, Fact, Facts, Notice, Skeleton } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useCan } from "../../components/admin-shell/SessionContext";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { describeApiError, readApiError } from "../../trpc/errors";
import styles from "./webhooks.module.css";

/** The default URLs and the secret's prefix; owners and admins change them in Settings. */
export function WebhookSettingsCard() {
  const { t } = useI18n();
  const w = t.webhooksPage;
  const trpc = useTRPC();
  const canEdit = useCan()("organization.update");
  const overview = useQuery(trpc.webhooks.overview.queryOptions());

  let body;
  if (overview.isPending) body = <Skeleton label={t.common.loading} lines={2} />;
  else if (overview.error) body = <Notice tone="danger">{describeApiError(readApiError(overview.error), t)}</Notice>;
  else
    body = (
      <Facts className={styles.endpointFacts}>
        <Fact term={w.urls}>
          {overview.data.webhookUrls.length === 0 ? (
            <span className="cs-hint">{w.noUrls}</span>
          ) : (
            <ul className={styles.urls}>
              {overview.data.webhookUrls.map((url) => (
                <li key={url} className="cs-mono">
                  {url}
                </li>
              ))}
            </ul>
          )}
        </Fact>
        <Fact term={w.secret}>
          {overview.data.secretPrefix ? (
            <Badge tone="success">
              <span className="cs-mono" data-testid="secret-prefix">
                {format(w.secretPrefix, { prefix: overview.data.secretPrefix })}
              </span>
            </Badge>
          ) : (
            <Badge tone="warning">{w.noSecret}</Badge>
          )}
        </Fact>
      </Facts>
    );

  return (
    <Card title={w.endpointsTitle} description={w.endpointsDescription}>
      {body}
      {canEdit ? (
        <Link className={styles.settingsLink} href="/settings">
          {w.editInSettings}
        </Link>
      ) : (
        <p className="cs-hint">{w.adminOnly}</p>
      )}
    </Card>
  );
}
