import { describe, expect, it } from "vitest";
import {
  draggedField,
  drawnField,
  drawPreview,
  fieldEditorReducer,
  initialFieldEditorState,
  pointIn,
  type Drag,
} from "./field-editor-state";
import { toDisplay } from "./field-geometry";

const A4 = { number: 1, count: 2, width: 595.28, height: 841.89, rotate: 0 };
const field = { page: 1, x: 100, y: 100, width: 200, height: 60 };

describe("the field editor's state", () => {
  it("selects nothing while drawing and the grabbed field while moving or resizing", () => {
    const selected = { ...initialFieldEditorState, selected: 3 };
    const draw: Drag = { kind: "draw", page: 1, from: { x: 0.1, y: 0.1 }, to: { x: 0.1, y: 0.1 } };
    expect(fieldEditorReducer(selected, { type: "grab", drag: draw })).toMatchObject({ selected: null, drag: draw });
    const move: Drag = { kind: "move", index: 2, from: { x: 0.2, y: 0.2 }, box: toDisplay(field, A4) };
    expect(fieldEditorReducer(selected, { type: "grab", drag: move })).toMatchObject({ selected: 2, drag: move });
  });

  it("stretches a drawing to the pointer and ignores the pointer when nothing is drawn", () => {
    const draw: Drag = { kind: "draw", page: 1, from: { x: 0.1, y: 0.1 }, to: { x: 0.1, y: 0.1 } };
    const drawing = fieldEditorReducer(initialFieldEditorState, { type: "grab", drag: draw });
    expect(fieldEditorReducer(drawing, { type: "drawTo", at: { x: 0.5, y: 0.3 } }).drag).toEqual({
      ...draw,
      to: { x: 0.5, y: 0.3 },
    });
    expect(fieldEditorReducer(initialFieldEditorState, { type: "drawTo", at: { x: 0.5, y: 0.3 } })).toBe(
      initialFieldEditorState,
    );
    expect(fieldEditorReducer(drawing, { type: "release" }).drag).toBeNull();
  });

  it("remembers whose role is being typed until a field is removed", () => {
    let state = fieldEditorReducer(initialFieldEditorState, { type: "typeRole", index: 1, typing: true });
    state = fieldEditorReducer(state, { type: "typeRole", index: 4, typing: true });
    state = fieldEditorReducer(state, { type: "typeRole", index: 1, typing: false });
    expect([...state.typingRole]).toEqual([4]);
    state = fieldEditorReducer({ ...state, selected: 4 }, { type: "removed", announcement: "Field 2 removed." });
    expect(state).toMatchObject({ selected: null, announcement: "Field 2 removed." });
    expect(state.typingRole.size).toBe(0);
  });

  it("selects and announces an added field", () => {
    expect(
      fieldEditorReducer(initialFieldEditorState, { type: "added", index: 0, announcement: "Added." }),
    ).toMatchObject({ selected: 0, announcement: "Added." });
  });
});

describe("the field editor's pointer", () => {
  it("reads the pointer as fractions of the page surface", () => {
    expect(pointIn({ left: 100, top: 50, width: 400, height: 200 }, { clientX: 200, clientY: 150 })).toEqual({
      x: 0.25,
      y: 0.5,
    });
  });

  it("moves a field by the pointer's travel, and resizes it by its corner", () => {
    const box = toDisplay(field, A4);
    const from = { x: 0.5, y: 0.5 };
    const at = { x: 0.5 + 10 / A4.width, y: 0.5 + 20 / A4.height };
    expect(draggedField({ kind: "move", index: 0, from, box }, at, A4, 1)).toEqual({ ...field, x: 110, y: 120 });
    expect(draggedField({ kind: "resize", index: 0, from, box }, at, A4, 1)).toEqual({
      ...field,
      width: 210,
      height: 80,
    });
  });

  it("makes a field of a drawing on its page, not of a click, and previews it only there", () => {
    const draw: Drag = { kind: "draw", page: 1, from: { x: 0.1, y: 0.1 }, to: { x: 0.4, y: 0.2 } };
    expect(drawnField(draw, A4)).toMatchObject({ page: 1, x: expect.closeTo(59.53), width: expect.closeTo(178.58) });
    expect(drawnField({ ...draw, to: { x: 0.101, y: 0.101 } }, A4)).toBeNull();
    expect(drawnField(null, A4)).toBeNull();
    expect(drawPreview(draw, 1)).toMatchObject({ left: 0.1, top: 0.1 });
    expect(drawPreview(draw, 2)).toBeNull();
  });
});
