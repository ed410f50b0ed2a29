import { describe, expect, it } from "vitest";
import { draftChanges, draftOf, isDraftChanged } from "./document-draft";

const stored = {
  title: "Consent",
  description: null,
  fields: [{ page: 1, x: 10, y: 10, width: 200, height: 60 }],
  language: null,
};

describe("the document page's draft", () => {
  it("starts as the stored version and is unchanged until edited", () => {
    const draft = draftOf(stored);
    expect(draft).toEqual({ ...stored, description: "" });
    expect(isDraftChanged(draft, stored)).toBe(false);
    expect(draftChanges(draft, stored)).toEqual({});
  });

  it("sends only what changed, trimmed, with an emptied description cleared", () => {
    const draft = { ...draftOf(stored), title: " Consent 2 ", description: "  " };
    expect(isDraftChanged(draft, stored)).toBe(true);
    expect(draftChanges(draft, stored)).toEqual({ title: "Consent 2", description: null });
    expect(draftChanges({ ...draftOf(stored), description: " Read it " }, stored)).toEqual({
      description: "Read it",
    });
  });

  it("sends the fields and the language when they changed", () => {
    const fields = [{ ...stored.fields[0]!, role: "physician" }];
    expect(draftChanges({ ...draftOf(stored), fields, language: "de" }, stored)).toEqual({ fields, language: "de" });
  });
});
