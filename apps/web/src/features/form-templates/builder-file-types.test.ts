import { templateSchema } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { readAccept, writeAccept } from "./builder-file-types";

describe("the form builder's model", () => {
  it("turns ticked file types into an accept list the schema takes, and reads it back", () => {
    const accept = writeAccept(new Set(["pdf", "images"]), " .ODT ");
    expect(accept).toBe("application/pdf,.pdf,image/*,.odt");
    expect(
      templateSchema.safeParse({ version: 1, fields: [{ id: "f", type: "file", key: "f", label: "F", accept }] })
        .success,
    ).toBe(true);
    expect(readAccept(accept)).toEqual({ choices: new Set(["pdf", "images"]), other: ".odt" });
    expect(readAccept(".docx")).toEqual({ choices: new Set(["word"]), other: "" });
    expect(writeAccept(new Set(), "")).toBeUndefined();
  });
});
