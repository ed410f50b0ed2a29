import { describe, expect, it } from "vitest";
import { withoutHeldFiles } from "./use-offline-form";

describe("a draft save's answers while files picked offline wait on the device", () => {
  it("leaves out the files the server has never seen and keeps everything else as it is", () => {
    const sent = { name: "card.pdf", path: "uploads/org/abc/card.pdf", size: 10, type: "application/pdf" };
    const held = { name: "scan.png", path: "held:7d1c0c8e-4d1f-4a36-9f0e-2b1d1b3f7a10", size: 20, type: "image/png" };
    expect(
      withoutHeldFiles({ insuranceCard: [sent, held], findings: [held], allergies: ["Latex"], fullName: "Erika" }),
    ).toEqual({ insuranceCard: [sent], findings: [], allergies: ["Latex"], fullName: "Erika" });
  });
});
