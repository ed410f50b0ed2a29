"use client";

import { Button, SelectField, TextField } from "@clinsign/ui";
import { PdfPages, type PdfFieldRect, type PdfPageGeometry, type PdfPagesLabels } from "@clinsign/ui/pdf-pages";
import { useEffect, useId, useRef, useState, type KeyboardEvent, type PointerEvent as ReactPointerEvent } from "react";
import { format } from "../../i18n";
import { builtInSignerRoles, type BuiltInSignerRole } from "@clinsign/contracts";
import { isBuiltInRole, roleTone, signerRoleLabel } from "../signing/roles";
import {
  centredField,
  clampToPage,
  dragBox,
  fromDisplay,
  isBigEnough,
  MAX_FIELDS,
  minBox,
  moveBox,
  nudge,
  resizeBox,
  toDisplay,
  type Box,
} from "./field-geometry";
import styles from "./field-editor.module.css";

/** pdf.js's fonts and decoders, served by this app (app/(patient)/sign/pdfjs). */
const PDFJS_ASSETS = "/sign/pdfjs/";

/** The role select's choice that shows a text field for the clinic's own role name. */
const OTHER_ROLE = "\u0000other";
/** A clinic's own role name is at most this long (the API's limit). */
const MAX_ROLE_LENGTH = 60;

/**
 * A signature field as the editor keeps it: the rectangle, whose field it is (`role`, absent: the
 * patient's) and whether that signer must sign it (`required`, absent: required).
 */
export type EditorField = PdfFieldRect & { role?: string; required?: boolean };

/** 1 to count, the choices of a page select. */
const pageNumbers = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

export interface FieldEditorLabels {
  pages: PdfPagesLabels;
  /** "Signature field {number} on page {page}" */
  fieldName: string;
  /** What the arrow keys, Alt, Shift and Delete do on a focused field. */
  keyboardHelp: string;
  drawHint: string;
  touchDraw: string;
  touchDrawOn: string;
  addField: string;
  addFieldOnPage: string;
  removeField: string;
  fieldsTitle: string;
  noFields: string;
  maxFields: string;
  page: string;
  x: string;
  y: string;
  width: string;
  height: string;
  pointsHint: string;
  added: string;
  removed: string;
  /** "Signer" (the role select). */
  role: string;
  roleOther: string;
  roleName: string;
  roleNameHint: string;
  required: string;
  optionalTag: string;
  roles: Record<BuiltInSignerRole, string>;
}

export interface FieldPlacementEditorProps {
  /** The PDF: a chosen file before upload, or a stored version. */
  data: Uint8Array;
  fields: readonly EditorField[];
  onChange(fields: EditorField[]): void;
  labels: FieldEditorLabels;
}

type Drag =
  | { kind: "draw"; page: number; from: { x: number; y: number }; to: { x: number; y: number } }
  | { kind: "move" | "resize"; index: number; from: { x: number; y: number }; box: Box };

/**
 * Places signature fields on a PDF: draw one with the mouse or a finger (touch drawing is switched
 * on explicitly, so a finger still scrolls the document), move it by dragging, resize it by its
 * corner, and nudge or resize it with the keyboard. The numbers beside the pages are the stored
 * values (PDF points, top-left origin, page from 1) and are editable; every change is clamped so
 * no field can leave its page.
 */
export function FieldPlacementEditor({ data, fields, onChange, labels }: FieldPlacementEditorProps) {
  const [geometry, setGeometry] = useState<Record<number, PdfPageGeometry>>({});
  const [selected, setSelected] = useState<number | null>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const [touchDraw, setTouchDraw] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const [addPage, setAddPage] = useState(1);
  const focusAfterRender = useRef<number | null>(null);
  const handles = useRef(new Map<number, HTMLButtonElement>());
  const helpId = useId();
  const pageCount = Object.keys(geometry).length;
  const full = fields.length >= MAX_FIELDS;

  useEffect(() => {
    if (focusAfterRender.current === null) return;
    handles.current.get(focusAfterRender.current)?.focus();
    focusAfterRender.current = null;
  });

  // Geometry helpers return bare rectangles: the field keeps its role and required flag.
  const replace = (index: number, field: Partial<EditorField>) =>
    onChange(fields.map((f, i) => (i === index ? { ...f, ...field } : f)));
  const roleOf = (field: EditorField | undefined) => signerRoleLabel(field?.role, labels.roles);
  const handleText = (index: number) =>
    `${index + 1} · ${roleOf(fields[index])}${fields[index]?.required === false ? ` (${labels.optionalTag})` : ""}`;
  const nameOf = (index: number) =>
    `${format(labels.fieldName, { number: index + 1, page: fields[index]?.page ?? 1 })} (${roleOf(fields[index])}${
      fields[index]?.required === false ? `, ${labels.optionalTag}` : ""
    })`;
  // Typing a role of one's own: the select shows "other…" even while the name is still empty.
  const [typingRole, setTypingRole] = useState<ReadonlySet<number>>(new Set());

  function add(field: PdfFieldRect) {
    if (full) return;
    const next = [...fields, field];
    onChange(next);
    setSelected(next.length - 1);
    focusAfterRender.current = next.length - 1;
    setAnnouncement(format(labels.added, { number: next.length, page: field.page }));
  }

  function remove(index: number) {
    onChange(fields.filter((_, i) => i !== index));
    setTypingRole(new Set());
    setSelected(null);
    setAnnouncement(format(labels.removed, { number: index + 1 }));
  }

  function onFieldKey(event: KeyboardEvent, index: number) {
    const field = fields[index]!;
    const page = geometry[field.page];
    if (event.key === "Delete" || event.key === "Backspace") {
      event.preventDefault();
      remove(index);
      return;
    }
    if (!page || !["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(event.key)) return;
    event.preventDefault();
    replace(index, nudge(field, page, event.key as "ArrowLeft", { large: event.shiftKey, resize: event.altKey }));
  }

  /** The pointer's position as fractions of the page box it is over. */
  const pointIn = (element: Element, event: ReactPointerEvent) => {
    const rect = element.getBoundingClientRect();
    return { x: (event.clientX - rect.left) / rect.width, y: (event.clientY - rect.top) / rect.height };
  };

  function overlay(page: PdfPageGeometry) {
    const onPage = fields.map((field, index) => ({ field, index })).filter((entry) => entry.field.page === page.number);
    const preview = drag?.kind === "draw" && drag.page === page.number ? dragBox(drag.from, drag.to) : null;
    return (
      <PageSurface
        page={page}
        onGeometry={setGeometry}
        drawing={touchDraw}
        onPointerDown={(event) => {
          if (event.target !== event.currentTarget || full) return;
          // A finger scrolls unless touch drawing is on; mouse and pen always draw.
          if (event.pointerType === "touch" && !touchDraw) return;
          event.currentTarget.setPointerCapture(event.pointerId);
          const at = pointIn(event.currentTarget, event);
          setSelected(null);
          setDrag({ kind: "draw", page: page.number, from: at, to: at });
        }}
        onPointerMove={(event) => {
          if (!drag) return;
          const surface = (event.currentTarget as HTMLElement).closest("[data-surface]") ?? event.currentTarget;
          const at = pointIn(surface, event);
          if (drag.kind === "draw") setDrag({ ...drag, to: at });
          else {
            const field = fields[drag.index]!;
            const dx = at.x - drag.from.x;
            const dy = at.y - drag.from.y;
            const box = drag.kind === "move" ? moveBox(drag.box, dx, dy) : resizeBox(drag.box, dx, dy, minBox(page));
            replace(drag.index, fromDisplay(box, page, field.page));
          }
        }}
        onPointerUp={() => {
          if (drag?.kind === "draw") {
            const box = dragBox(drag.from, drag.to);
            if (isBigEnough(box, page)) add(fromDisplay(box, page, page.number));
          }
          setDrag(null);
        }}
      >
        {onPage.map(({ field, index }) => (
          <Positioned
            key={index}
            box={toDisplay(field, page)}
            className={styles.fieldBox}
            selected={selected === index}
            tone={roleTone(field.role)}
          >
            <button
              ref={(element) => {
                if (element) handles.current.set(index, element);
                else handles.current.delete(index);
              }}
              type="button"
              className={styles.fieldHandle}
              // The name starts with what the handle shows ("2 · Physician"), as speech input needs.
              aria-label={`${handleText(index)} — ${nameOf(index)}: x ${field.x}, y ${field.y}, ${field.width} × ${field.height}`}
              aria-describedby={helpId}
              aria-pressed={selected === index}
              data-testid="placed-field"
              onFocus={() => setSelected(index)}
              onKeyDown={(event) => onFieldKey(event, index)}
              onPointerDown={(event) => {
                event.stopPropagation();
                event.currentTarget.setPointerCapture(event.pointerId);
                const surface = event.currentTarget.closest("[data-surface]")!;
                setSelected(index);
                setDrag({ kind: "move", index, from: pointIn(surface, event), box: toDisplay(field, page) });
              }}
            >
              <span className={styles.fieldNumber} aria-hidden="true">
                {handleText(index)}
              </span>
            </button>
            <span
              className={styles.resizeHandle}
              aria-hidden="true"
              onPointerDown={(event) => {
                event.stopPropagation();
                event.currentTarget.setPointerCapture(event.pointerId);
                const surface = event.currentTarget.closest("[data-surface]")!;
                setSelected(index);
                setDrag({ kind: "resize", index, from: pointIn(surface, event), box: toDisplay(field, page) });
              }}
            />
          </Positioned>
        ))}
        {preview ? <Positioned box={preview} className={styles.drawPreview} /> : null}
      </PageSurface>
    );
  }

  return (
    <div className={styles.editor}>
      <div className={styles.pages}>
        <div className={styles.toolbar}>
          <p className="cs-hint">{labels.drawHint}</p>
          <Button
            size="small"
            variant={touchDraw ? "primary" : "secondary"}
            aria-pressed={touchDraw}
            onClick={() => setTouchDraw(!touchDraw)}
          >
            {touchDraw ? labels.touchDrawOn : labels.touchDraw}
          </Button>
        </div>
        <PdfPages
          data={data}
          labels={labels.pages}
          assetsUrl={PDFJS_ASSETS}
          pageOverlay={overlay}
          className={styles.document}
        />
      </div>
      <aside className={styles.panel} aria-label={labels.fieldsTitle}>
        <h3 className={styles.panelTitle}>{labels.fieldsTitle}</h3>
        <p id={helpId} className="cs-hint">
          {labels.keyboardHelp}
        </p>
        <div className={styles.addRow}>
          <SelectField
            id={`${helpId}-add-page`}
            label={labels.addFieldOnPage}
            options={pageNumbers(Math.max(pageCount, 1)).map((page) => ({ value: String(page) }))}
            value={String(addPage)}
            onChange={(event) => setAddPage(Number(event.target.value))}
            disabled={pageCount === 0}
          />
          <Button
            variant="secondary"
            disabled={full || !geometry[addPage]}
            onClick={() => geometry[addPage] && add(centredField(addPage, geometry[addPage]!))}
          >
            {labels.addField}
          </Button>
        </div>
        {full ? <p className="cs-hint">{labels.maxFields}</p> : null}
        {fields.length === 0 ? <p className={styles.empty}>{labels.noFields}</p> : null}
        <ol className={styles.fieldList}>
          {fields.map((field, index) => (
            <li key={index} className={styles.fieldItem} data-selected={selected === index || undefined}>
              <fieldset className={styles.fieldset}>
                <legend className={styles.legend}>{nameOf(index)}</legend>
                <RoleChoice
                  id={`${helpId}-${index}`}
                  field={field}
                  typing={typingRole.has(index)}
                  labels={labels}
                  onTyping={(typing) =>
                    setTypingRole((current) => {
                      const next = new Set(current);
                      if (typing) next.add(index);
                      else next.delete(index);
                      return next;
                    })
                  }
                  onChange={(change) => replace(index, change)}
                />
                <div className={styles.numbers}>
                  <SelectField
                    id={`${helpId}-${index}-page`}
                    label={labels.page}
                    options={pageNumbers(Math.max(pageCount, field.page)).map((page) => ({ value: String(page) }))}
                    value={String(field.page)}
                    onChange={(event) => {
                      const number = Number(event.target.value);
                      const page = geometry[number];
                      replace(index, page ? clampToPage({ ...field, page: number }, page) : { ...field, page: number });
                    }}
                  />
                  {(["x", "y", "width", "height"] as const).map((key) => (
                    <NumberField
                      key={key}
                      id={`${helpId}-${index}-${key}`}
                      label={labels[key]}
                      value={field[key]}
                      onCommit={(value) => {
                        const page = geometry[field.page];
                        const next = { ...field, [key]: value };
                        replace(index, page ? clampToPage(next, page) : next);
                      }}
                    />
                  ))}
                </div>
                <Button
                  size="small"
                  variant="danger-outline"
                  onClick={() => remove(index)}
                  aria-label={`${labels.removeField}: ${nameOf(index)}`}
                >
                  {labels.removeField}
                </Button>
              </fieldset>
            </li>
          ))}
        </ol>
        <p className="cs-hint">{labels.pointsHint}</p>
        <p role="status" aria-live="polite" className="cs-visually-hidden">
          {announcement}
        </p>
      </aside>
    </div>
  );
}

/** The page-sized surface fields are drawn on; reports the page's geometry to the editor. */
function PageSurface({
  page,
  onGeometry,
  drawing,
  children,
  ...pointer
}: {
  page: PdfPageGeometry;
  onGeometry(update: (current: Record<number, PdfPageGeometry>) => Record<number, PdfPageGeometry>): void;
  drawing: boolean;
  children: React.ReactNode;
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

/**
 * Whose field it is (a built-in role, or "other…" and the clinic's own name) and whether it must
 * be signed. A role of one's own is kept as typed (trimmed when saved by the API).
 */
function RoleChoice({
  id,
  field,
  typing,
  labels,
  onTyping,
  onChange,
}: {
  id: string;
  field: EditorField;
  typing: boolean;
  labels: FieldEditorLabels;
  onTyping(typing: boolean): void;
  onChange(change: Partial<EditorField>): void;
}) {
  const role = field.role ?? "patient";
  const custom = typing || !isBuiltInRole(role);
  return (
    <div className={styles.roleRow}>
      <SelectField
        id={`${id}-role`}
        label={labels.role}
        options={[
          ...builtInSignerRoles.map((value) => ({ value, label: labels.roles[value] })),
          { value: OTHER_ROLE, label: labels.roleOther },
        ]}
        value={custom ? OTHER_ROLE : role}
        onChange={(event) => {
          const value = event.target.value;
          onTyping(value === OTHER_ROLE);
          onChange({ role: value === OTHER_ROLE ? "" : value });
        }}
      />
      {custom ? (
        <TextField
          id={`${id}-role-name`}
          label={labels.roleName}
          hint={labels.roleNameHint}
          hintAfter
          value={role}
          maxLength={MAX_ROLE_LENGTH}
          autoComplete="off"
          autoFocus={typing && role === ""}
          onChange={(event) => onChange({ role: event.target.value })}
        />
      ) : null}
      <label className={styles.check}>
        <input
          type="checkbox"
          checked={field.required !== false}
          onChange={(event) => onChange({ required: event.target.checked })}
        />
        <span>{labels.required}</span>
      </label>
    </div>
  );
}

/** A box placed in fractions of its page, through CSS custom properties (the CSP allows no inline styles). */
function Positioned({
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
  children?: React.ReactNode;
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

/** A number input that keeps what is typed until it is a number, then commits it. */
function NumberField({
  id,
  label,
  value,
  onCommit,
}: {
  id: string;
  label: string;
  value: number;
  onCommit(value: number): void;
}) {
  const [text, setText] = useState(String(value));
  const [shown, setShown] = useState(value);
  const [focused, setFocused] = useState(false);
  if (value !== shown && !focused) {
    setShown(value);
    setText(String(value));
  }
  return (
    <div className="cs-field">
      <label className="cs-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="cs-input cs-input--mono"
        type="number"
        inputMode="decimal"
        step="1"
        min="0"
        value={text}
        onFocus={() => setFocused(true)}
        onBlur={() => {
          setFocused(false);
          setShown(value);
          setText(String(value));
        }}
        onChange={(event) => {
          setText(event.target.value);
          const parsed = Number(event.target.value);
          if (event.target.value.trim() !== "" && Number.isFinite(parsed)) onCommit(parsed);
        }}
      />
    </div>
  );
}
