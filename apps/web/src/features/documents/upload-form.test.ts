import { describe, expect, it } from "vitest";
import { initialUploadForm, looksLikePdf, uploadFormReducer } from "./upload-form";

const pdf = (name: string) => ({ bytes: new TextEncoder().encode("%PDF-1.7\n"), name });

describe("the upload form of a new document", () => {
  it("names the document after a chosen file unless a name was typed, and starts its fields afresh", () => {
    const field = { page: 1, x: 1, y: 1, width: 20, height: 20 };
    const chosen = uploadFormReducer(
      { ...initialUploadForm, fields: [field] },
      { type: "fileChosen", file: pdf("Consent form.PDF") },
    );
    expect(chosen).toMatchObject({ name: "Consent form", fields: [] });
    const named = uploadFormReducer({ ...initialUploadForm, name: "Mine" }, { type: "fileChosen", file: pdf("x.pdf") });
    expect(named.name).toBe("Mine");
  });

  it("clears both errors when another file is chosen", () => {
    const failed = { ...initialUploadForm, fileError: "Not a PDF", uploadError: { message: "No" } };
    expect(uploadFormReducer(failed, { type: "choosing" })).toMatchObject({ fileError: null, uploadError: null });
  });

  it("ends the upload with its refusal, so the form can be sent again", () => {
    const uploading = uploadFormReducer(
      { ...initialUploadForm, uploadError: { message: "Old" } },
      { type: "uploading" },
    );
    expect(uploading).toMatchObject({ uploading: true, uploadError: null });
    const refusal = { message: "is required", field: "document_name" };
    expect(uploadFormReducer(uploading, { type: "uploadFailed", error: refusal })).toMatchObject({
      uploading: false,
      uploadError: refusal,
    });
  });

  it("takes a file for a PDF when '%PDF-' is in its first kilobyte", () => {
    expect(looksLikePdf(pdf("a.pdf").bytes)).toBe(true);
    expect(looksLikePdf(new TextEncoder().encode(`${" ".repeat(1100)}%PDF-`))).toBe(false);
  });
});
