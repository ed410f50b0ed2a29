import { describe, expect, it } from "vitest";
import { describeAcceptedKinds } from "@clinsign/ui/form";
import { de } from "../../i18n/de";
import { en } from "../../i18n/en";

describe("a file field's accepted kinds, in the patient's words", () => {
  it("names PDF and pictures instead of MIME types, in German and English", () => {
    expect(describeAcceptedKinds(".pdf,image/*", de.forms.file.kinds)).toBe("PDF, Bilder (JPG, PNG …)");
    expect(describeAcceptedKinds(".pdf,image/*", en.forms.file.kinds)).toBe("PDF, images (JPG, PNG …)");
  });

  it("names each kind once, whichever way the template wrote it", () => {
    expect(describeAcceptedKinds("application/pdf, .PDF", en.forms.file.kinds)).toBe("PDF");
    expect(describeAcceptedKinds(".jpg,.jpeg,image/png", en.forms.file.kinds)).toBe("JPG, PNG");
    expect(describeAcceptedKinds("image/*,.jpg,.png", de.forms.file.kinds)).toBe("Bilder (JPG, PNG …)");
    expect(describeAcceptedKinds(".docx,application/msword,.zip,text/csv,video/*", en.forms.file.kinds)).toBe(
      "Word, ZIP, CSV, video",
    );
  });
});
