"use client";

import type { PdfFieldRect, PdfPageGeometry } from "@clinsign/ui/pdf-pages";
import {
  useEffect,
  useReducer,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent as ReactPointerEvent,
} from "react";
import { format } from "../../i18n";
import type { EditorField, FieldEditorLabels } from "./editor-fields";
import {
  draggedField,
  drawnField,
  fieldEditorReducer,
  initialFieldEditorState,
  pointIn,
  type FieldDrag,
  type FieldEditorAction,
  type FieldEditorState,
} from "./field-editor-state";
import { MAX_FIELDS, nudge, toDisplay } from "./field-geometry";

const ARROWS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"] as const;
const isArrow = (key: string): key is (typeof ARROWS)[number] => (ARROWS as readonly string[]).includes(key);

/** The page surface a pointer event happened in (a field's handle lies inside one). */
const surfaceOf = (element: Element) => element.closest("[data-surface]");

/**
 * The field editor's behaviour: its state, the pages' geometry as they render, adding, removing and
 * changing fields, the keyboard on a field and the pointer on a page. Fields stay the caller's
 * (`fields`, `onChange`); every change to one keeps its role and required flag.
 */
export function useFieldPlacement(
  fields: readonly EditorField[],
  onChange: (fields: EditorField[]) => void,
  labels: FieldEditorLabels,
) {
  const [geometry, setGeometry] = useState<Record<number, PdfPageGeometry>>({});
  const [state, dispatch] = useReducer(fieldEditorReducer, initialFieldEditorState);
  const { focusAfterRender, registerHandle } = useHandleFocus();
  const full = fields.length >= MAX_FIELDS;

  const replace = (index: number, field: Partial<EditorField>) =>
    onChange(fields.map((f, i) => (i === index ? { ...f, ...field } : f)));

  function add(field: PdfFieldRect) {
    if (full) return;
    const next = [...fields, field];
    onChange(next);
    focusAfterRender(next.length - 1);
    dispatch({
      type: "added",
      index: next.length - 1,
      announcement: format(labels.added, { number: next.length, page: field.page }),
    });
  }

  function remove(index: number) {
    onChange(fields.filter((_, i) => i !== index));
    dispatch({ type: "removed", announcement: format(labels.removed, { number: index + 1 }) });
  }

  function onFieldKey(event: KeyboardEvent, index: number) {
    const field = fields[index]!;
    const page = geometry[field.page];
    if (event.key === "Delete" || event.key === "Backspace") {
      event.preventDefault();
      remove(index);
      return;
    }
    if (!page || !isArrow(event.key)) return;
    event.preventDefault();
    replace(index, nudge(field, page, event.key, { large: event.shiftKey, resize: event.altKey }));
  }

  /** A field's handle (move) or corner (resize) taken by the pointer. */
  function grab(kind: FieldDrag["kind"], index: number, page: PdfPageGeometry, event: ReactPointerEvent<HTMLElement>) {
    event.stopPropagation();
    event.currentTarget.setPointerCapture(event.pointerId);
    const surface = surfaceOf(event.currentTarget)!;
    const from = pointIn(surface.getBoundingClientRect(), event);
    dispatch({ type: "grab", drag: { kind, index, from, box: toDisplay(fields[index]!, page) } });
  }

  const surfacePointer = (page: PdfPageGeometry) =>
    pagePointer(page, { drag: state.drag, touchDraw: state.touchDraw, full, fields, dispatch, replace, add });

  return {
    ...state,
    dispatch,
    geometry,
    setGeometry,
    full,
    replace,
    add,
    remove,
    onFieldKey,
    grab,
    surfacePointer,
    registerHandle,
  };
}

/**
 * The placed fields' handles, by index, and a field to focus once it has rendered (a new field's
 * handle does not exist before the render that shows it).
 */
function useHandleFocus() {
  const pending = useRef<number | null>(null);
  const handles = useRef(new Map<number, HTMLButtonElement>());
  useEffect(() => {
    if (pending.current === null) return;
    handles.current.get(pending.current)?.focus();
    pending.current = null;
  });
  return {
    focusAfterRender(index: number) {
      pending.current = index;
    },
    registerHandle(index: number, element: HTMLButtonElement | null) {
      if (element) handles.current.set(index, element);
      else handles.current.delete(index);
    },
  };
}

/**
 * The pointer on a page: pressing its free surface starts drawing a new field (a finger only while
 * touch drawing is on), moving stretches the drawing or drags the grabbed field, and letting go
 * adds what was drawn unless it was only a click.
 */
function pagePointer(
  page: PdfPageGeometry,
  editor: Pick<FieldEditorState, "drag" | "touchDraw"> & {
    full: boolean;
    fields: readonly EditorField[];
    dispatch(action: FieldEditorAction): void;
    replace(index: number, field: Partial<EditorField>): void;
    add(field: PdfFieldRect): void;
  },
) {
  return {
    onPointerDown(event: ReactPointerEvent<HTMLDivElement>) {
      if (event.target !== event.currentTarget || editor.full) return;
      // A finger scrolls unless touch drawing is on; mouse and pen always draw.
      if (event.pointerType === "touch" && !editor.touchDraw) return;
      event.currentTarget.setPointerCapture(event.pointerId);
      const at = pointIn(event.currentTarget.getBoundingClientRect(), event);
      editor.dispatch({ type: "grab", drag: { kind: "draw", page: page.number, from: at, to: at } });
    },
    onPointerMove(event: ReactPointerEvent) {
      const drag = editor.drag;
      if (!drag) return;
      const surface = surfaceOf(event.currentTarget) ?? event.currentTarget;
      const at = pointIn(surface.getBoundingClientRect(), event);
      if (drag.kind === "draw") editor.dispatch({ type: "drawTo", at });
      else editor.replace(drag.index, draggedField(drag, at, page, editor.fields[drag.index]!.page));
    },
    onPointerUp() {
      const field = drawnField(editor.drag, page);
      if (field) editor.add(field);
      editor.dispatch({ type: "release" });
    },
  };
}
