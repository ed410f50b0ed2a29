import { describe, expect, it } from "vitest";
import { verifyRefusal } from "./verify-refusal";

describe("the verify page's reading of a refusal", () => {
  it("names a too large file and too many checks by their status, whatever the body", () => {
    expect(verifyRefusal(413, null)).toBe("tooLarge");
    expect(verifyRefusal(429, { error: { details: { reason: "not_pdf" } } })).toBe("rateLimited");
  });

  it("tells a file that is no PDF from one beyond the check's limits", () => {
    expect(verifyRefusal(400, { error: { code: "bad_request", details: { reason: "not_pdf" } } })).toBe("notPdf");
    expect(verifyRefusal(422, { error: { details: { reason: "pdf_limits" } } })).toBe("unreadable");
    expect(verifyRefusal(415, { error: { code: "unsupported_media_type" } })).toBe("notPdf");
  });

  it("says the check failed for anything else", () => {
    expect(verifyRefusal(500, null)).toBe("failed");
    expect(verifyRefusal(400, { error: { code: "bad_request" } })).toBe("failed");
  });
});
