"use client";

import type { SigningView } from "@clinsign/contracts";
import { Notice, PdfPages, type PdfPagesLabels } from "@clinsign/ui";
import { useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { useTRPC } from "../../trpc/client";
import { base64ToBytes } from "./download";
import styles from "./signing.module.css";

/** pdf.js's fonts and decoders, served by this app (app/(portal)/sign/pdfjs). */
const PDFJS_ASSETS = "/sign/pdfjs/";

/** The pinned document version, page by page, with the signature fields outlined. */
export function DocumentView({ view, sessionToken }: { view: SigningView; sessionToken: string }) {
  const { t } = usePatientI18n();
  const trpc = useTRPC();
  const document = useQuery(trpc.signing.document.queryOptions({ sessionToken }, { staleTime: Infinity, gcTime: Infinity }));
  const bytes = useMemo(() => (document.data ? base64ToBytes(document.data.base64) : null), [document.data]);
  const labels: PdfPagesLabels = useMemo(
    () => ({
      loading: t.signing.pdfLoading,
      failed: t.signing.pdfFailed,
      page: (number, count) => format(t.signing.pdfPage, { number, count }),
      field: t.signing.fieldTag,
    }),
    [t],
  );
  const pageCount = view.pageCount ?? 0;

  return (
    <section className={styles.section} aria-labelledby="document-heading">
      <div className={styles.sectionHeader}>
        <h2 id="document-heading">{t.signing.documentHeading}</h2>
        {pageCount > 0 ? <p className="cs-hint">{pageCount === 1 ? t.signing.pageCountOne : format(t.signing.pageCount, { count: pageCount })}</p> : null}
      </div>
      {view.fields && view.fields.length > 0 ? <p className="cs-hint">{t.signing.fieldsHint}</p> : null}
      {document.isError ? (
        <Notice tone="danger" role="alert">
          {t.signing.pdfFailed}
        </Notice>
      ) : bytes ? (
        <PdfPages data={bytes} fields={view.fields ?? []} labels={labels} assetsUrl={PDFJS_ASSETS} className={styles.pdf} />
      ) : (
        <div className={styles.pdfPlaceholder} aria-busy="true">
          <p role="status" className={styles.pdfPlaceholderText}>
            <span className="cs-spinner" aria-hidden="true" />
            {t.signing.pdfLoading}
          </p>
        </div>
      )}
    </section>
  );
}
