import { describe, expect, it } from "vitest";
import { centredField, clampToPage, dragBox, fromDisplay, isBigEnough, nudge, toDisplay } from "./field-geometry";

const A4 = { width: 595.28, height: 841.89, rotate: 0 };

describe("field geometry of the document field editor", () => {
  it("maps a field to the displayed page and back on every rotation", () => {
    const field = { page: 2, x: 100, y: 600, width: 200, height: 60 };
    for (const rotate of [0, 90, 180, 270, -90, 450]) {
      const page = { ...A4, rotate };
      const back = fromDisplay(toDisplay(field, page), page, 2);
      expect(back).toEqual(field);
    }
  });

  it("shows a field of a 90° page where the rotated page has it", () => {
    // On the unrotated page the field touches the top-left corner; turned clockwise it touches the top-right.
    const box = toDisplay({ page: 1, x: 0, y: 0, width: 100, height: 50 }, { ...A4, rotate: 90 });
    expect(box.left + box.width).toBeCloseTo(1);
    expect(box.top).toBeCloseTo(0);
  });

  it("never lets a field leave its page, whatever the numbers", () => {
    expect(clampToPage({ page: 1, x: 500, y: 820, width: 200, height: 60 }, A4)).toEqual({
      page: 1,
      x: 395.28,
      y: 781.89,
      width: 200,
      height: 60,
    });
    expect(clampToPage({ page: 1, x: -40, y: -1, width: 9999, height: 30 }, A4)).toEqual({
      page: 1,
      x: 0,
      y: 0,
      width: 595.28,
      height: 30,
    });
    expect(clampToPage({ page: 1, x: Number.NaN, y: 10, width: 0, height: -5 }, A4)).toMatchObject({
      x: 0,
      width: 1,
      height: 1,
    });
  });

  it("turns a drag in any direction into the box it spans, and ignores a click", () => {
    expect(dragBox({ x: 0.6, y: 0.5 }, { x: 0.2, y: 0.4 })).toEqual({
      left: 0.2,
      top: 0.4,
      width: 0.39999999999999997,
      height: 0.09999999999999998,
    });
    expect(dragBox({ x: 0.9, y: 0.9 }, { x: 1.4, y: 1.2 })).toMatchObject({
      width: expect.closeTo(0.1),
      height: expect.closeTo(0.1),
    });
    expect(isBigEnough(dragBox({ x: 0.5, y: 0.5 }, { x: 0.505, y: 0.505 }), A4)).toBe(false);
    expect(isBigEnough(dragBox({ x: 0.1, y: 0.1 }, { x: 0.4, y: 0.2 }), A4)).toBe(true);
  });

  it("nudges by one or ten points, resizes with Alt, and stops at the page edge", () => {
    const field = { page: 1, x: 100, y: 100, width: 200, height: 60 };
    expect(nudge(field, A4, "ArrowRight", { large: false, resize: false })).toEqual({ ...field, x: 101 });
    expect(nudge(field, A4, "ArrowUp", { large: true, resize: false })).toEqual({ ...field, y: 90 });
    expect(nudge(field, A4, "ArrowDown", { large: true, resize: true })).toEqual({ ...field, height: 70 });
    expect(nudge({ ...field, x: 0 }, A4, "ArrowLeft", { large: true, resize: false })).toEqual({ ...field, x: 0 });
    // Resizing never goes below the minimum field size.
    expect(nudge({ ...field, width: 12 }, A4, "ArrowLeft", { large: true, resize: true }).width).toBe(12);
  });

  it("places a keyboard-added field in the middle of its page", () => {
    expect(centredField(3, A4)).toEqual({ page: 3, x: 197.64, y: 390.95, width: 200, height: 60 });
    expect(centredField(1, { width: 150, height: 40 })).toEqual({ page: 1, x: 0, y: 0, width: 150, height: 40 });
  });
});
