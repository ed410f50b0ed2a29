"use client";

import type { SigningPageImages } from "@clinsign/contracts";
import { Button, Notice, PagesPlaceholder, useNearViewport, type PageSize } from "@clinsign/ui";
import { PageImages } from "@clinsign/ui/page-images";
import type { PdfPagesLabels, PdfPagesProps, PdfShownField } from "@clinsign/ui/pdf-pages";
import { lazy, Suspense, useMemo, useRef, useState, type ReactNode, type RefObject } from "react";
import { format } from "../../i18n";
import { usePatientI18n } from "../../i18n/I18nProvider";
import { base64ToBytes } from "./download";
import styles from "./signing.module.css";
import { MAX_ZOOM, MIN_ZOOM, stepZoom, useDocumentZoom } from "./zoom";

/** pdf.js's fonts and decoders, served by this app (app/(patient)/sign/pdfjs). */
const PDFJS_ASSETS = "/sign/pdfjs/";

// The pages come as images drawn by the API when the version was created (view.pageImages): no
// pdf.js on the phone. pdf.js (~120 KB compressed, plus its worker and the PDF itself) is loaded
// only when there are no images yet, or when the patient asks for the original PDF; then it
// arrives once the ready screen is painted and the document section is near the screen.
// A chunk that cannot be fetched (the connection dropped) says the document cannot be shown,
// like a PDF pdf.js cannot read, instead of taking the sign form down with it.
const PdfPages = lazy(() =>
  import("@clinsign/ui/pdf-pages").then(
    (module) => ({ default: module.PdfPages }),
    () => ({ default: ViewerUnavailable }),
  ),
);

function ViewerUnavailable({ labels }: PdfPagesProps) {
  return (
    <Notice tone="danger" role="alert">
      {labels.failed}
    </Notice>
  );
}

export interface DocumentViewProps {
  pageCount: number | null;
  /** Each page's size: the pages' sheets stand in their place while they load, so the pad below stays put. */
  pageSizes?: readonly PageSize[] | null;
  /** The viewer's fields to sign, and (several signers) the others' signatures already made. */
  fields: readonly PdfShownField[];
  /** Several signers: the hint also explains the others' signatures. */
  several?: boolean;
  /** The pinned version's pages drawn as images (the signing page); without them the PDF is shown. */
  pageImages?: SigningPageImages | null;
  /**
   * Fetches the pinned PDF (the patient's `signing.document`, the console's staff view) once
   * `enabled`: only without page images, or when the signer asks for the original.
   */
  useDocument(enabled: boolean): { data?: { base64: string }; isError: boolean };
  /** Fetches each page's text once `enabled`, for screen readers over the page images. */
  usePageTexts?(enabled: boolean): { data?: { pages: string[] } };
  onGoToSignature(): void;
}

/**
 * The pinned document version, page by page, with the signature fields outlined. On a phone a
 * page at the screen's width has tiny text: the reading tools zoom it (buttons, or a two-finger
 * pinch inside the document; the document then scrolls sideways within its frame, never the
 * page), and "Go to the signature" skips the pages.
 */
export function DocumentView({
  pageCount: pages,
  pageSizes,
  fields,
  several,
  pageImages,
  useDocument,
  usePageTexts,
  onGoToSignature,
}: DocumentViewProps) {
  const { t } = usePatientI18n();
  const [original, setOriginal] = useState(false);
  const images = original ? null : (pageImages ?? null);
  const document = useDocument(!images);
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
  const pageCount = pages ?? 0;
  const { ref: sectionRef, near } = useNearViewport<HTMLElement>();
  const [zoom, setZoom] = useState(MIN_ZOOM);
  const viewerRef = useRef<HTMLDivElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const texts = usePageTexts?.(Boolean(images && near));
  // The zoom frame is there from the start (the loading sheets are in it) unless the PDF failed.
  const frameShown = Boolean(images) || !document.isError;
  useDocumentZoom(viewerRef, contentRef, zoom, setZoom, frameShown);
  const frame = { zoom, viewerRef, contentRef };
  const loading = <PagesPlaceholder pageSizes={pageSizes} loading={labels.loading} page={labels.page} />;

  return (
    <section ref={sectionRef} className={styles.section} aria-labelledby="document-heading">
      <DocumentHeading pageCount={pageCount} hasFields={fields.length > 0} several={several} />
      <ReadingTools
        zoom={zoom}
        onZoom={setZoom}
        onShowOriginal={images ? () => setOriginal(true) : null}
        onGoToSignature={onGoToSignature}
      />
      <p className="cs-hint">{t.signing.zoomHint}</p>
      {!frameShown ? (
        <Notice tone="danger" role="alert">
          {t.signing.pdfFailed}
        </Notice>
      ) : (
        // One frame whatever it shows: the loading sheets sit exactly where the pages will.
        <ZoomFrame {...frame}>
          {images ? (
            <PageImages
              images={images}
              fields={fields}
              labels={labels}
              texts={texts?.data?.pages}
              // A page is as wide as the patient page's column (760 px at most), times the zoom.
              sizes={`(min-width: 760px) ${Math.round(760 * zoom)}px, ${Math.round(100 * zoom)}vw`}
            />
          ) : bytes && near ? (
            <Suspense fallback={loading}>
              <PdfPages data={bytes} fields={fields} labels={labels} pageSizes={pageSizes} assetsUrl={PDFJS_ASSETS} />
            </Suspense>
          ) : (
            loading
          )}
        </ZoomFrame>
      )}
    </section>
  );
}

/** The section's heading, how many pages, and what the outlined fields are. */
function DocumentHeading({
  pageCount,
  hasFields,
  several,
}: {
  pageCount: number;
  hasFields: boolean;
  several?: boolean;
}) {
  const { t } = usePatientI18n();
  return (
    <>
      <div className={styles.sectionHeader}>
        <h2 id="document-heading">{t.signing.documentHeading}</h2>
        {pageCount > 0 ? (
          <p className="cs-hint">
            {pageCount === 1 ? t.signing.pageCountOne : format(t.signing.pageCount, { count: pageCount })}
          </p>
        ) : null}
      </div>
      {hasFields ? <p className="cs-hint">{several ? t.signing.ownFieldsHint : t.signing.fieldsHint}</p> : null}
    </>
  );
}

/** Zoom out, the level, zoom in, fit; the original PDF (over page images); "Go to the signature". */
function ReadingTools({
  zoom,
  onZoom,
  onShowOriginal,
  onGoToSignature,
}: {
  zoom: number;
  onZoom(zoom: number): void;
  /** Null when the original is what is shown already. */
  onShowOriginal: (() => void) | null;
  onGoToSignature(): void;
}) {
  const { t } = usePatientI18n();
  return (
    <div className={styles.readingTools} role="group" aria-label={t.signing.zoomToolbar}>
      <div className={styles.zoomControls}>
        <Button
          iconOnly
          aria-label={t.signing.zoomOut}
          onClick={() => onZoom(stepZoom(zoom, -1))}
          disabled={zoom <= MIN_ZOOM}
        >
          <span aria-hidden="true">−</span>
        </Button>
        <output className={styles.zoomLevel} aria-live="polite">
          {format(t.signing.zoomLevel, { percent: Math.round(zoom * 100) })}
        </output>
        <Button
          iconOnly
          aria-label={t.signing.zoomIn}
          onClick={() => onZoom(stepZoom(zoom, 1))}
          disabled={zoom >= MAX_ZOOM}
        >
          <span aria-hidden="true">+</span>
        </Button>
        {zoom > MIN_ZOOM ? (
          <Button size="small" variant="ghost" onClick={() => onZoom(MIN_ZOOM)}>
            {t.signing.zoomFit}
          </Button>
        ) : null}
      </div>
      {onShowOriginal ? (
        <Button size="small" variant="ghost" onClick={onShowOriginal}>
          {t.signing.showOriginal}
        </Button>
      ) : null}
      <Button size="small" variant="primary" onClick={onGoToSignature}>
        {t.signing.goToSignature}
      </Button>
    </div>
  );
}

/** The frame the pages zoom in, whichever way they are drawn. */
function ZoomFrame({
  zoom,
  viewerRef,
  contentRef,
  children,
}: {
  zoom: number;
  viewerRef: RefObject<HTMLDivElement | null>;
  contentRef: RefObject<HTMLDivElement | null>;
  children: ReactNode;
}) {
  const { t } = usePatientI18n();
  return (
    <div
      ref={viewerRef}
      className={styles.pdf}
      data-testid="document-viewer"
      data-zoom={zoom}
      // Zoomed, the pages scroll sideways here: keyboard users scroll it with the arrow keys.
      {...(zoom > MIN_ZOOM && { tabIndex: 0, role: "region", "aria-label": t.signing.documentPages })}
    >
      <div ref={contentRef} className={styles.zoomed}>
        {children}
      </div>
    </div>
  );
}
