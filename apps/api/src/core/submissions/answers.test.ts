import { describe, expect, it } from "vitest";
import { answerText, patientName } from "./answers";
import { NEUTRAL_OUTPUT } from "../organizations/output-format";

const schema = (fields: Array<{ key: string; label: string; type?: string }>) => ({
  fields: fields.map((f) => ({ type: "text", ...f })),
});

describe("patientName", () => {
  it("finds the patient's name by the field's key or label, first and last name together", () => {
    expect(patientName(schema([{ key: "name", label: "Vollständiger Name" }]), { name: " Erika Mustermann " })).toBe(
      "Erika Mustermann",
    );
    expect(
      patientName(
        schema([
          { key: "q1", label: "Vorname" },
          { key: "notes", label: "Anmerkung" },
          { key: "q2", label: "Nachname" },
        ]),
        { q1: "Erika", q2: "Mustermann", notes: "x" },
      ),
    ).toBe("Erika Mustermann");
    expect(
      patientName(
        schema([
          { key: "first_name", label: "First" },
          { key: "last-name", label: "Last" },
        ]),
        { first_name: "Max", "last-name": "Muster" },
      ),
    ).toBe("Max Muster");
    expect(patientName(schema([{ key: "q", label: "Name (wie auf der Versichertenkarte)" }]), { q: "Erika" })).toBe(
      "Erika",
    );
  });

  it("is null when the form asked for no name, and never takes other fields for one", () => {
    expect(
      patientName(
        schema([
          { key: "doctor", label: "Name des Hausarztes" },
          { key: "city", label: "Ort" },
        ]),
        { doctor: "Dr. X", city: "Köln" },
      ),
    ).toBeNull();
    expect(patientName(schema([{ key: "name", label: "Name", type: "select" }]), { name: "a" })).toBeNull();
    expect(patientName(schema([{ key: "name", label: "Name" }]), {})).toBeNull();
  });
});

describe("answerText", () => {
  it("writes yes/no, dates and the signature marker in the organization's language", () => {
    const de = { ...NEUTRAL_OUTPUT, locale: "de" as const };
    expect(answerText({ type: "checkbox" }, true, de)).toBe("ja");
    expect(answerText({ type: "checkbox" }, false, NEUTRAL_OUTPUT)).toBe("no");
    expect(answerText({ type: "date" }, "2024-03-01", de)).toBe("01.03.2024");
    expect(answerText({ type: "signature" }, "data:image/png;base64,x", de)).toBe("[Unterschrift]");
    expect(answerText({ type: "phone" }, "+491701234567", de)).toBe("0170 1234567");
  });
});
