import type { FhirPushTarget } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { credentialState, fhirPushModel, fhirPushReducer, type FhirPushModel } from "./fhir-push-reducer";

const target: FhirPushTarget = {
  enabled: true,
  baseUrl: "https://fhir.klinik.example/r4",
  auth: "bearer",
  hasSecret: true,
  clientId: null,
  tokenUrl: null,
  scope: null,
  patientIdSystem: null,
  rnummerSystem: null,
  updatedAt: "2026-11-29T10:00:00.000Z",
};

const withFeedback = (model: FhirPushModel): FhirPushModel => ({
  ...model,
  feedback: { tone: "success", text: "Saved." },
});

describe("fhirPushReducer", () => {
  it("changes a setting, dropping the last save's word and the message on that field only", () => {
    const failed = { ...withFeedback(fhirPushModel(target)), errors: { baseUrl: "Bad", rnummerSystem: "Bad" } };
    const next = fhirPushReducer(failed, { type: "change", patch: { baseUrl: "https://fhir.example" } });
    expect(next.form.baseUrl).toBe("https://fhir.example");
    expect(next.feedback).toBeNull();
    expect(next.errors).toEqual({ rnummerSystem: "Bad" });
  });

  it("says a stored credential without showing it, and opens its field only to replace it", () => {
    const model = fhirPushModel(target);
    expect(model.form.secret).toBe("");
    expect(credentialState(model)).toBe("stored");
    const replacing = fhirPushReducer(model, { type: "replaceCredential" });
    expect(credentialState(replacing)).toBe("replace");
    const typed = fhirPushReducer(replacing, { type: "change", patch: { secret: "new-token" } });
    const kept = fhirPushReducer(typed, { type: "keepCredential" });
    expect(credentialState(kept)).toBe("stored");
    expect(kept.form.secret).toBe("");
  });

  it("asks for a new credential when the kind changes, and drops what was typed for the old one", () => {
    const typed = fhirPushReducer(fhirPushReducer(fhirPushModel(target), { type: "replaceCredential" }), {
      type: "change",
      patch: { secret: "bearer-token" },
    });
    const smart = fhirPushReducer(typed, { type: "chooseAuth", auth: "smart_backend" });
    expect(smart.form.secret).toBe("");
    expect(credentialState(smart)).toBe("enter");
    expect(credentialState(fhirPushReducer(smart, { type: "chooseAuth", auth: "none" }))).toBe("none");
    expect(credentialState(fhirPushReducer(smart, { type: "chooseAuth", auth: "bearer" }))).toBe("stored");
    expect(credentialState(fhirPushModel(null))).toBe("none");
  });

  it("fails with the errors and a new focus request each time", () => {
    const action = { type: "fail", errors: { baseUrl: "Bad" }, text: "Not saved." } as const;
    const first = fhirPushReducer(fhirPushModel(target), action);
    const second = fhirPushReducer(first, action);
    expect(first.feedback).toEqual({ tone: "danger", text: "Not saved." });
    expect(first.errors).toEqual({ baseUrl: "Bad" });
    expect(second.focusRequest).not.toBe(first.focusRequest);
  });

  it("takes the saved server: its credential now stored, the typed one gone", () => {
    const entering = fhirPushReducer(fhirPushModel(null), { type: "chooseAuth", auth: "bearer" });
    const typed = fhirPushReducer(entering, { type: "change", patch: { secret: "tok" } });
    const saved = fhirPushReducer(typed, { type: "saved", target, text: "Saved." });
    expect(saved.form.secret).toBe("");
    expect(saved.saved).toBe(target);
    expect(credentialState(saved)).toBe("stored");
    expect(saved.feedback).toEqual({ tone: "success", text: "Saved." });
  });
});
