"use client";

import { Badge, EmptyState, Skeleton } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { PageHeader } from "../../components/PageHeader";
import { format } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { isClientError } from "../../trpc/errors";
import { PreviewPane } from "./PreviewPane";
import { statusLabel } from "./status";

/** The staff preview page of a template (`/form-templates/<identifier>/preview`). */
export function TemplatePreview({ identifier }: { identifier: string }) {
  const { t } = useI18n();
  const trpc = useTRPC();
  const template = useQuery(
    trpc.templates.get.queryOptions(
      { identifier, activeOnly: false },
      { retry: (count, error) => !isClientError(error) && count < 2 },
    ),
  );
  const p = t.formTemplates.preview;

  if (template.isPending) {
    return (
      <div aria-busy="true">
        <Skeleton label={t.common.loading} lines={6} />
      </div>
    );
  }
  if (template.isError) {
    return (
      <EmptyState
        level={1}
        icon="alert"
        title={p.heading}
        description={isClientError(template.error) ? p.notFound : t.errors.loadFailed}
      />
    );
  }
  const current = template.data;
  return (
    <>
      <PageHeader
        title={format(p.pageTitle, { title: current.title })}
        description={p.intro}
        actions={
          <>
            <Badge>{format(p.status, { status: statusLabel(current.status, t) })}</Badge>
            <a
              href={`/form-templates/${encodeURIComponent(current.identifier)}`}
              className="cs-button cs-button--secondary"
            >
              {t.formTemplates.edit}
            </a>
            <a href="/form-templates" className="cs-button cs-button--secondary">
              {p.back}
            </a>
          </>
        }
      />
      <PreviewPane
        title={current.title}
        description={current.description}
        schema={current.schema}
        defaultLanguage={current.defaultLanguage}
        translations={current.translations}
      />
    </>
  );
}
