"use client";

import type { IconName } from "@clinsign/ui";
import Link from "next/link";
import type { ReactNode } from "react";
import { DetailStates, type DetailQuery } from "../DetailStates";
import { PageHeader } from "../PageHeader";
import styles from "./DetailPage.module.css";

/** "← Back to the list": above a staff detail page or editor. */
export function BackLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} className={styles.back}>
      ← {children}
    </Link>
  );
}

/** The main column (at the left, wider) and the side column of a detail page; one column below 960px. */
export function DetailColumns({ children }: { children: ReactNode }) {
  return <div className={styles.columns}>{children}</div>;
}

/**
 * The scaffold of a staff detail page (a signature request, a submission): the way back to the
 * list, the loading and failure screens while the record is not there (DetailStates), then the
 * header (title, description with the record's status, actions) and the page's sections.
 */
export function DetailPage<Data>({
  query,
  back,
  loadingTitle,
  icon,
  notFound,
  header,
  children,
}: {
  query: DetailQuery & { data: Data | undefined };
  back: { href: string; label: string };
  /** The title while the record loads. */
  loadingTitle: string;
  icon: IconName;
  notFound: { title: string; body?: string };
  header(data: Data): { title: ReactNode; description?: ReactNode; actions?: ReactNode };
  children(data: Data): ReactNode;
}) {
  const backLink = <BackLink href={back.href}>{back.label}</BackLink>;
  if (query.isPending || query.error || query.data === undefined)
    return <DetailStates query={query} back={backLink} title={loadingTitle} icon={icon} notFound={notFound} />;
  return (
    <>
      {backLink}
      <PageHeader {...header(query.data)} />
      {children(query.data)}
    </>
  );
}
