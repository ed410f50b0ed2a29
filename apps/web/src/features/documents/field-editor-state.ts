import type { PdfFieldRect, PdfPageGeometry } from "@clinsign/ui/pdf-pages";
import { dragBox, fromDisplay, isBigEnough, minBox, moveBox, resizeBox, type Box } from "./field-geometry";

/**
 * The field editor's own state (what is selected, what is being dragged, the add row's page, whose
 * role is being typed, what was last announced) and its pointer arithmetic, pure so it is tested
 * without a browser. The fields themselves belong to the page that uses the editor.
 */

/** A position as fractions of the displayed page (0…1). */
export interface Point {
  x: number;
  y: number;
}

export type Drag =
  | { kind: "draw"; page: number; from: Point; to: Point }
  | { kind: "move" | "resize"; index: number; from: Point; box: Box };

/** A drag of a placed field: by its handle (move) or by its corner (resize). */
export type FieldDrag = Extract<Drag, { kind: "move" | "resize" }>;

export interface FieldEditorState {
  selected: number | null;
  drag: Drag | null;
  /** A finger draws instead of scrolling the document. */
  touchDraw: boolean;
  /** The page "Add field" places a field on. */
  addPage: number;
  /** Fields whose role select shows "other…" while their own role name is still being typed. */
  typingRole: ReadonlySet<number>;
  announcement: string;
}

export const initialFieldEditorState: FieldEditorState = {
  selected: null,
  drag: null,
  touchDraw: false,
  addPage: 1,
  typingRole: new Set(),
  announcement: "",
};

export type FieldEditorAction =
  | { type: "select"; index: number }
  /** A drag starts: drawing clears the selection, moving or resizing selects the field. */
  | { type: "grab"; drag: Drag }
  | { type: "drawTo"; at: Point }
  | { type: "release" }
  | { type: "toggleTouchDraw" }
  | { type: "chooseAddPage"; page: number }
  | { type: "typeRole"; index: number; typing: boolean }
  | { type: "added"; index: number; announcement: string }
  | { type: "removed"; announcement: string };

export function fieldEditorReducer(state: FieldEditorState, action: FieldEditorAction): FieldEditorState {
  switch (action.type) {
    case "select":
      return state.selected === action.index ? state : { ...state, selected: action.index };
    case "grab":
      return { ...state, drag: action.drag, selected: action.drag.kind === "draw" ? null : action.drag.index };
    case "drawTo":
      return state.drag?.kind === "draw" ? { ...state, drag: { ...state.drag, to: action.at } } : state;
    case "release":
      return state.drag === null ? state : { ...state, drag: null };
    case "toggleTouchDraw":
      return { ...state, touchDraw: !state.touchDraw };
    case "chooseAddPage":
      return { ...state, addPage: action.page };
    case "typeRole": {
      const typingRole = new Set(state.typingRole);
      if (action.typing) typingRole.add(action.index);
      else typingRole.delete(action.index);
      return { ...state, typingRole };
    }
    case "added":
      return { ...state, selected: action.index, announcement: action.announcement };
    case "removed":
      // The indexes after the removed field shift, so no "other…" choice is carried over.
      return { ...state, typingRole: new Set(), selected: null, announcement: action.announcement };
  }
}

/** The pointer's position as fractions of the box it is over (a page surface's client rectangle). */
export function pointIn(
  rect: { left: number; top: number; width: number; height: number },
  pointer: { clientX: number; clientY: number },
): Point {
  return { x: (pointer.clientX - rect.left) / rect.width, y: (pointer.clientY - rect.top) / rect.height };
}

/** Where a moved or resized field lies with the pointer at `at` on `page`, kept on the page. */
export function draggedField(
  drag: FieldDrag,
  at: Point,
  page: Pick<PdfPageGeometry, "width" | "height" | "rotate">,
  pageNumber: number,
): PdfFieldRect {
  const dx = at.x - drag.from.x;
  const dy = at.y - drag.from.y;
  const box = drag.kind === "move" ? moveBox(drag.box, dx, dy) : resizeBox(drag.box, dx, dy, minBox(page));
  return fromDisplay(box, page, pageNumber);
}

/** The field a finished drag draws on `page`, or null when it drew none or only clicked. */
export function drawnField(drag: Drag | null, page: PdfPageGeometry): PdfFieldRect | null {
  if (drag?.kind !== "draw") return null;
  const box = dragBox(drag.from, drag.to);
  return isBigEnough(box, page) ? fromDisplay(box, page, page.number) : null;
}

/** The box being drawn on the page numbered `pageNumber`, shown while the pointer is down. */
export const drawPreview = (drag: Drag | null, pageNumber: number): Box | null =>
  drag?.kind === "draw" && drag.page === pageNumber ? dragBox(drag.from, drag.to) : null;
