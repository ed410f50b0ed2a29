"use client";

import type { Branding, InstitutionBrandingItem } from "@clinsign/contracts";
import { Card, EmptyState, keysetPaging, Notice, Skeleton, useStaffList, type TableColumn } from "@clinsign/ui";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { useCan } from "../../components/admin-shell/SessionContext";
import { BackLink } from "../../components/detail/DetailPage";
import { ListCard } from "../../components/lists/ListCard";
import { PageHeader } from "../../components/PageHeader";
import { QueryState } from "../../components/QueryState";
import { format, type Dictionary } from "../../i18n";
import { useI18n } from "../../i18n/I18nProvider";
import { useClinicTime } from "../../components/admin-shell/clinic-time";
import { useTRPC } from "../../trpc/client";
import { readApiError } from "../../trpc/errors";
import { BrandEditor, type EditTarget } from "./BrandEditor";
import { Swatch } from "./Swatch";
import styles from "./branding.module.css";
import { LoadFailed } from "../../components/LoadFailed";

/** `?edit=default`, `?edit=new`, `?institution=<id>`: the editor is in the URL, so Back leaves it. */
function useEditTarget(): [EditTarget | null, (target: EditTarget | null, replace?: boolean) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const institution = params.get("institution");
  const edit = params.get("edit");
  const target: EditTarget | null = institution
    ? { kind: "institution", institutionId: institution }
    : edit === "default"
      ? { kind: "default" }
      : edit === "new"
        ? { kind: "new" }
        : null;
  return [
    target,
    (next, replace = false) => {
      const href =
        next === null
          ? pathname
          : `${pathname}?${next.kind === "institution" ? new URLSearchParams({ institution: next.institutionId }) : new URLSearchParams({ edit: next.kind })}`;
      if (replace) router.replace(href, { scroll: false });
      else router.push(href);
    },
  ];
}

export const editHref = (target: EditTarget) =>
  `/branding?${target.kind === "institution" ? new URLSearchParams({ institution: target.institutionId }) : new URLSearchParams({ edit: target.kind })}`;

/** Logo, colours and font of one branding, as a definition list. */
function BrandSummary({ branding, b }: { branding: Branding; b: Dictionary["brandingPage"] }) {
  return (
    <dl className={styles.summary}>
      <dt>{b.logo}</dt>
      <dd className={styles.url}>{branding.logoUrl ?? "–"}</dd>
      <dt>{b.primaryColor}</dt>
      <dd>
        <Swatch color={branding.primaryColor} />
      </dd>
      <dt>{b.accentColor}</dt>
      <dd>
        <Swatch color={branding.accentColor} />
      </dd>
      <dt>{b.font}</dt>
      <dd>{branding.font ?? b.fontDefault}</dd>
    </dl>
  );
}

function DefaultCard() {
  const { t } = useI18n();
  const b = t.brandingPage;
  const trpc = useTRPC();
  const current = useQuery(trpc.organization.defaultBranding.queryOptions());
  const canEdit = useCan()("organization.setDefaultBranding");
  return (
    <Card
      title={b.defaultTitle}
      description={b.defaultDescription}
      actions={
        canEdit ? (
          <Link className="cs-button cs-button--secondary" href={editHref({ kind: "default" })}>
            {b.editDefault}
          </Link>
        ) : undefined
      }
    >
      <QueryState query={current}>
        {(branding) =>
          branding ? <BrandSummary branding={branding} b={b} /> : <p className="cs-hint">{b.defaultNotSet}</p>
        }
      </QueryState>
    </Card>
  );
}

function InstitutionsCard() {
  const { t } = useI18n();
  const clinic = useClinicTime();
  const b = t.brandingPage;
  const trpc = useTRPC();
  const list = useStaffList(
    useInfiniteQuery(trpc.signatures.brandings.infiniteQueryOptions({ limit: 50 }, keysetPaging)),
  );
  const canEdit = useCan()("organization.setDefaultBranding");
  const columns: TableColumn<InstitutionBrandingItem>[] = [
    { key: "institution", header: b.columnInstitution, render: (row) => <strong>{row.institutionId}</strong> },
    { key: "primary", header: b.primaryColor, render: (row) => <Swatch color={row.primaryColor} /> },
    { key: "accent", header: b.accentColor, render: (row) => <Swatch color={row.accentColor} /> },
    { key: "font", header: b.font, render: (row) => row.font ?? b.fontDefault },
    { key: "logo", header: b.logo, render: (row) => (row.logoUrl ? b.logoSet : b.logoNone) },
    { key: "updated", header: b.columnUpdated, render: (row) => clinic.dateTime(row.updatedAt) },
  ];
  if (canEdit)
    columns.push({
      key: "edit",
      header: b.edit,
      end: true,
      render: (row) => (
        <Link
          className="cs-button cs-button--secondary cs-button--small"
          href={editHref({ kind: "institution", institutionId: row.institutionId })}
          aria-label={format(b.editLabel, { institution: row.institutionId })}
        >
          {b.edit}
        </Link>
      ),
    });
  return (
    <ListCard
      title={b.institutionsTitle}
      description={`${b.institutionsDescription} ${clinic.note}`}
      actions={
        canEdit ? (
          <Link className="cs-button cs-button--primary" href={editHref({ kind: "new" })}>
            {b.addInstitution}
          </Link>
        ) : undefined
      }
      list={list}
      caption={b.institutionsTitle}
      columns={columns}
      rowKey={(row) => row.institutionId}
      labels={b}
      empty={<EmptyState icon="branding" level={3} title={b.emptyTitle} description={b.emptyBody} />}
    />
  );
}

/** Loads what the editor starts from: the default, an institution's own branding, or nothing. */
function EditorLoader({
  target,
  onSaved,
  created,
}: {
  target: EditTarget;
  onSaved(target: EditTarget): void;
  created: boolean;
}) {
  const { t } = useI18n();
  const b = t.brandingPage;
  const trpc = useTRPC();
  const isDefault = target.kind === "default";
  const institutionId = target.kind === "institution" ? target.institutionId : "";
  const defaults = useQuery({ ...trpc.organization.defaultBranding.queryOptions(), enabled: isDefault });
  const design = useQuery({
    ...trpc.signatures.getDesign.queryOptions({ institution_id: institutionId }),
    enabled: target.kind === "institution" && !created,
    retry: false,
  });
  const query = isDefault ? defaults : design;
  const canEdit = useCan()("organization.setDefaultBranding");
  // Changing branding is for owners and admins (the API's one rule); the overview shows the rest.
  if (!canEdit) return <Notice tone="info">{b.adminOnly}</Notice>;
  const waiting = target.kind !== "new" && !created && query.isPending;
  if (waiting) return <Skeleton label={t.common.loading} lines={6} />;
  const error = target.kind !== "new" && !created && query.error ? readApiError(query.error) : null;
  if (error && error.code === "NOT_FOUND")
    return (
      <EmptyState
        level={2}
        icon="branding"
        title={b.notFoundTitle}
        description={format(b.notFoundBody, { institution: institutionId })}
      />
    );
  if (error) return <LoadFailed query={query} />;
  return (
    <BrandEditor
      target={target}
      initial={target.kind === "new" || created ? null : (query.data ?? null)}
      onSaved={onSaved}
    />
  );
}

/**
 * Branding: the organization's default (institutions without their own and the form pages use
 * it) and the institutions' own brandings, each edited with a live phone-width preview.
 */
export function BrandingPage() {
  const { t } = useI18n();
  const b = t.brandingPage;
  const [target, go] = useEditTarget();
  // A branding created here: the editor stays as it is (with its "saved" notice) while the URL
  // switches to that institution.
  const [createdId, setCreatedId] = useState<string | null>(null);
  const canEdit = useCan()("organization.setDefaultBranding");

  if (!target)
    return (
      <>
        <PageHeader title={b.pageTitle} description={b.description} />
        <div className="cs-stack cs-stack--lg">
          {canEdit ? null : <Notice tone="info">{b.adminOnly}</Notice>}
          <DefaultCard />
          <InstitutionsCard />
        </div>
      </>
    );

  const title =
    target.kind === "default"
      ? b.defaultTitle
      : target.kind === "new"
        ? b.newTitle
        : format(b.institutionTitle, { institution: target.institutionId });
  const created = target.kind === "institution" && target.institutionId === createdId;
  return (
    <>
      <BackLink href="/branding">{b.back}</BackLink>
      <PageHeader
        title={title}
        description={target.kind === "default" ? b.defaultDescription : b.institutionDescription}
      />
      <EditorLoader
        key={target.kind === "new" || created ? "new" : JSON.stringify(target)}
        target={target}
        created={created}
        onSaved={(saved) => {
          if (target.kind === "new" && saved.kind === "institution") {
            setCreatedId(saved.institutionId);
            go(saved, true);
          }
        }}
      />
    </>
  );
}
