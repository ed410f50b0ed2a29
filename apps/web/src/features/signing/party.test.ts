import type { PartySigner, SigningParty } from "@clinsign/contracts";
import { describe, expect, it } from "vitest";
import { en } from "../../i18n/en";
import { partyFields, stillToSign } from "./party";
import { signerRoleLabel, signerRoleList } from "./roles";

const rect = { page: 1, x: 10, y: 20, width: 100, height: 40 };
const signer = (id: string, role: string, change: Partial<PartySigner> = {}): PartySigner => ({
  id,
  role,
  kind: "link",
  position: 0,
  required: true,
  label: null,
  status: "pending",
  signedAt: null,
  signature: null,
  fields: [{ ...rect, role }],
  ...change,
});
const ME = "00000000-0000-4000-8000-000000000002";

describe("several signers on the signing page", () => {
  const party: SigningParty = {
    order: "sequential",
    me: ME,
    waitingFor: [],
    signers: [
      signer("00000000-0000-4000-8000-000000000001", "patient", {
        status: "signed",
        signature: { kind: "drawn", dataUrl: "data:image/png;base64,AAAA" },
      }),
      signer(ME, "legal_representative"),
      signer("00000000-0000-4000-8000-000000000003", "Second parent", { required: false, status: "waiting" }),
      signer("00000000-0000-4000-8000-000000000004", "physician", { status: "waiting" }),
    ],
  };

  it("outlines the signer's own fields and shows the others' signatures already made, not their empty fields", () => {
    const fields = partyFields({ fields: [{ ...rect, y: 200, role: "legal_representative" }], party }, en);
    expect(fields).toEqual([
      { page: 1, x: 10, y: 200, width: 100, height: 40 },
      {
        ...{ page: 1, x: 10, y: 20, width: 100, height: 40 },
        label: "Patient",
        signed: { image: "data:image/png;base64,AAAA", alt: "Signature of the Patient" },
      },
    ]);
  });

  it("names the required signers still to sign, without the viewer", () => {
    expect(stillToSign(party)).toEqual(["physician"]);
  });

  it("translates built-in roles and keeps a clinic's own role name as typed", () => {
    expect(signerRoleLabel(undefined, en.signing.signerRoles)).toBe("Patient");
    expect(signerRoleList(["legal_representative", "Second parent"], en.signing.signerRoles)).toBe(
      "Legal representative, Second parent",
    );
  });
});
