import { describe, expect, it } from "vitest";
import type { SettingsFormState } from "./settings-form";
import { settingsFormModel, settingsFormReducer, type SettingsFormModel } from "./settings-form-reducer";

const form = { name: "Demo Clinic", webhookUrls: ["https://a.example", "https://b.example"] } as SettingsFormState;

const withFeedback = (model: SettingsFormModel): SettingsFormModel => ({
  ...model,
  feedback: { tone: "success", text: "Saved." },
});

describe("settingsFormReducer", () => {
  it("changes a setting and drops the last save's word", () => {
    const next = settingsFormReducer(withFeedback(settingsFormModel(form)), { type: "change", patch: { name: "New" } });
    expect(next.form.name).toBe("New");
    expect(next.feedback).toBeNull();
  });

  it("edits one URL row", () => {
    const next = settingsFormReducer(settingsFormModel(form), {
      type: "changeUrl",
      row: 1,
      value: "https://c.example",
    });
    expect(next.form.webhookUrls).toEqual(["https://a.example", "https://c.example"]);
  });

  it("removes a row with the URL rows' errors, which point at moved positions", () => {
    const model = { ...settingsFormModel(form), errors: { "webhookUrls.1": "Bad", name: "Required" } };
    const next = settingsFormReducer(model, { type: "removeUrl", row: 0 });
    expect(next.form.webhookUrls).toEqual(["https://b.example"]);
    expect(next.errors).toEqual({ name: "Required" });
  });

  it("adds an empty row and asks for the focus on it", () => {
    const next = settingsFormReducer(settingsFormModel(form), { type: "addUrl" });
    expect(next.form.webhookUrls).toHaveLength(3);
    expect(next.focusRequest).toEqual({ kind: "url", row: 2 });
  });

  it("fails with the errors, the message and a new focus request each time", () => {
    const action = { type: "fail", errors: { name: "Required" }, formError: null, text: "Not saved." } as const;
    const first = settingsFormReducer(settingsFormModel(form), action);
    const second = settingsFormReducer(first, action);
    expect(first.feedback).toEqual({ tone: "danger", text: "Not saved." });
    expect(first.errors).toEqual({ name: "Required" });
    expect(second.focusRequest).not.toBe(first.focusRequest);
  });

  it("takes the saved form and clears the errors", () => {
    const failed = { ...settingsFormModel(form), errors: { name: "Required" } };
    const next = settingsFormReducer(failed, { type: "saved", form: { ...form, name: "Saved" }, text: "Saved." });
    expect(next.form.name).toBe("Saved");
    expect(next.errors).toEqual({});
    expect(next.feedback).toEqual({ tone: "success", text: "Saved." });
  });
});
