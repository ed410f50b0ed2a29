"use client";

import type { PdfPageGeometry } from "@clinsign/ui/pdf-pages";
import { useEffect, useRef, type KeyboardEvent, type PointerEvent as ReactPointerEvent, type ReactNode } from "react";
import { roleTone } from "../signing/roles";
import type { EditorField } from "./editor-fields";
import type { FieldDrag } from "./field-editor-state";
import type { Box } from "./field-geometry";
import styles from "./field-editor.module.css";

/** The page-sized surface fields are drawn on; reports the page's geometry to the editor. */
export function PageSurface({
  page,
  onGeometry,
  drawing,
  children,
  ...pointer
}: {
  page: PdfPageGeometry;
  onGeometry(update: (current: Record<number, PdfPageGeometry>) => Record<number, PdfPageGeometry>): void;
  drawing: boolean;
  children: ReactNode;
  onPointerDown(event: ReactPointerEvent<HTMLDivElement>): void;
  onPointerMove(event: ReactPointerEvent): void;
  onPointerUp(): void;
}) {
  const { number, width, height, rotate, count } = page;
  useEffect(() => {
    onGeometry((current) => {
      const known = current[number];
      if (known && known.width === width && known.height === height && known.rotate === rotate) return current;
      return { ...current, [number]: { number, count, width, height, rotate } };
    });
  }, [onGeometry, number, count, width, height, rotate]);
  return (
    <div
      data-surface=""
      className={styles.surface}
      data-drawing={drawing || undefined}
      onPointerDown={pointer.onPointerDown}
      onPointerMove={pointer.onPointerMove}
      onPointerUp={pointer.onPointerUp}
      onPointerCancel={pointer.onPointerUp}
    >
      {children}
    </div>
  );
}

/** A box placed in fractions of its page, through CSS custom properties (the CSP allows no inline styles). */
export function Positioned({
  box,
  className,
  selected,
  tone,
  children,
}: {
  box: Box;
  className?: string;
  selected?: boolean;
  /** The role's colour slot (1–6). */
  tone?: number;
  children?: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const style = ref.current?.style;
    if (!style) return;
    style.setProperty("--left", `${(box.left * 100).toFixed(4)}%`);
    style.setProperty("--top", `${(box.top * 100).toFixed(4)}%`);
    style.setProperty("--width", `${(box.width * 100).toFixed(4)}%`);
    style.setProperty("--height", `${(box.height * 100).toFixed(4)}%`);
  }, [box.left, box.top, box.width, box.height]);
  return (
    <div ref={ref} className={className} data-selected={selected || undefined} data-tone={tone}>
      {children}
    </div>
  );
}

/**
 * A field placed on its page: a handle (focus it to select, drag it to move, keys to nudge) and a
 * corner to drag for resizing.
 */
export function PlacedField({
  field,
  box,
  selected,
  handleText,
  name,
  describedBy,
  handleRef,
  onSelect,
  onKeyDown,
  onGrab,
}: {
  field: EditorField;
  /** The field as fractions of the displayed page. */
  box: Box;
  selected: boolean;
  /** What the handle shows: "2 · Physician". */
  handleText: string;
  name: string;
  describedBy: string;
  handleRef(element: HTMLButtonElement | null): void;
  onSelect(): void;
  onKeyDown(event: KeyboardEvent): void;
  onGrab(kind: FieldDrag["kind"], event: ReactPointerEvent<HTMLElement>): void;
}) {
  return (
    <Positioned box={box} className={styles.fieldBox} selected={selected} tone={roleTone(field.role)}>
      <button
        ref={handleRef}
        type="button"
        className={styles.fieldHandle}
        // The name starts with what the handle shows ("2 · Physician"), as speech input needs.
        aria-label={`${handleText} — ${name}: x ${field.x}, y ${field.y}, ${field.width} × ${field.height}`}
        aria-describedby={describedBy}
        aria-pressed={selected}
        data-testid="placed-field"
        onFocus={onSelect}
        onKeyDown={onKeyDown}
        onPointerDown={(event) => onGrab("move", event)}
      >
        <span className={styles.fieldNumber} aria-hidden="true">
          {handleText}
        </span>
      </button>
      <span className={styles.resizeHandle} aria-hidden="true" onPointerDown={(event) => onGrab("resize", event)} />
    </Positioned>
  );
}
