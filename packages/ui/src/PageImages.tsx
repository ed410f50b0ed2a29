"use client";

import { useEffect, useRef, useState } from "react";
import { cx } from "./cx";
import { fieldBox, type PdfShownField } from "./pdf-geometry";
import { FieldBox } from "./PdfFieldBox";
import styles from "./PdfPages.module.css";

/** Where the pages' images are and their sizes (the contracts' `SigningPageImages`). */
export interface PageImagesSource {
  /** `<url>/<page>-<width>.webp` is page `page` at `width` pixels. */
  url: string;
  widths: number[];
  /** Per page: the unrotated size in PDF points, /Rotate, and each width's image height in pixels. */
  pages: { width: number; height: number; rotate: number; heights: number[] }[];
}

export interface PageImagesLabels {
  /** Accessible name of one page, e.g. "Page 1 of 3". */
  page(number: number, count: number): string;
  /** Text inside a highlighted field, e.g. "Sign here". */
  field: string;
}

export interface PageImagesProps {
  images: PageImagesSource;
  fields?: readonly PdfShownField[];
  labels: PageImagesLabels;
  /** Each page's text, put into the page as visually hidden text for screen readers (when known). */
  texts?: readonly string[];
  /** The `sizes` of every image: how wide a page is shown, so the browser picks the smallest image that is sharp. */
  sizes: string;
  className?: string;
}

/**
 * A document shown page by page from images drawn ahead of time (no pdf.js): the same frames,
 * field outlines and captions as `PdfPages`, so the two look alike and fields line up the same
 * way. Each image names its width and height (nothing moves when it arrives) and a `srcset`;
 * page 1 loads at once, the others when they come near. A page carries `data-rendered` once its
 * image has painted (the bench and the tests wait for it).
 */
export function PageImages({ images, fields = [], labels, texts, sizes, className }: PageImagesProps) {
  const count = images.pages.length;
  return (
    <div className={cx(styles.root, className)}>
      {images.pages.map((page, index) => (
        <PageImage
          key={index}
          number={index + 1}
          count={count}
          page={page}
          url={images.url}
          widths={images.widths}
          sizes={sizes}
          fields={fields.filter((field) => field.page === index + 1)}
          labels={labels}
          text={texts?.[index]}
        />
      ))}
    </div>
  );
}

interface PageImageProps {
  number: number;
  count: number;
  page: PageImagesSource["pages"][number];
  url: string;
  widths: number[];
  sizes: string;
  fields: PdfShownField[];
  labels: PageImagesLabels;
  text: string | undefined;
}

function PageImage({ number, count, page, url, widths, sizes, fields, labels, text }: PageImageProps) {
  const frameRef = useRef<HTMLDivElement>(null);
  const imageRef = useRef<HTMLImageElement>(null);
  const [rendered, setRendered] = useState(false);
  const largest = widths.length - 1;
  const pixelWidth = widths[largest]!;
  const pixelHeight = page.heights[largest]!;

  useEffect(() => {
    frameRef.current?.style.setProperty("--cs-pdf-aspect", `${pixelWidth} / ${pixelHeight}`);
  }, [pixelWidth, pixelHeight]);
  // An image the browser had already (its cache) may have loaded before React listened.
  useEffect(() => {
    const image = imageRef.current;
    if (image?.complete && image.naturalWidth > 0) setRendered(true);
  }, []);

  const name = labels.page(number, count);
  const source = (width: number) => `${url}/${number}-${width}.webp`;
  return (
    <figure className={styles.page} aria-label={name} data-page={number} data-rendered={rendered || undefined}>
      <div ref={frameRef} className={styles.frame}>
        <img
          ref={imageRef}
          className={styles.image}
          src={source(widths[0]!)}
          srcSet={widths.map((width) => `${source(width)} ${width}w`).join(", ")}
          sizes={sizes}
          width={pixelWidth}
          height={pixelHeight}
          alt=""
          aria-hidden="true"
          decoding="async"
          loading={number === 1 ? "eager" : "lazy"}
          fetchPriority={number === 1 ? "high" : "auto"}
          // Element Timing: when the page was painted, even before the page's scripts ran (the bench reads it).
          {...{ elementtiming: `document-page-${number}` }}
          onLoad={() => setRendered(true)}
        />
        {fields.map((field, index) => (
          <FieldBox
            key={index}
            box={fieldBox(field, page.width, page.height, page.rotate)}
            label={field.label ?? labels.field}
            signed={field.signed}
          />
        ))}
      </div>
      <figcaption className={styles.caption} aria-hidden="true">
        {name}
      </figcaption>
      {text ? <div className="cs-visually-hidden">{text}</div> : null}
    </figure>
  );
}
