import { describe, expect, it } from "vitest";
import { defaultChoice, move, rolesOfFields, signersOf } from "./signers";

const rect = { page: 1, x: 10, y: 10, width: 100, height: 40 };

describe("new request: signers", () => {
  it("lists a version's roles with the patient first and a role required when any of its fields is", () => {
    expect(
      rolesOfFields([
        { ...rect, role: "physician" },
        { ...rect, role: "witness", required: false },
        rect,
        { ...rect, role: "physician", required: false },
      ]),
    ).toEqual([
      { role: "patient", required: true },
      { role: "physician", required: true },
      { role: "witness", required: false },
    ]);
  });

  it("a document of patient fields only has one role", () => {
    expect(rolesOfFields([rect, { ...rect, role: "patient" }])).toEqual([{ role: "patient", required: true }]);
  });

  it("builds A1's signers in the chosen order: patient by role, staff by user, others with name and phone when given", () => {
    const me = "6f1c2a47-1f0b-4b7e-9a55-0d7d0c1b2a3e";
    const choices = [
      defaultChoice("patient", me),
      { ...defaultChoice("legal_representative", me), name: " Maria Muster ", phone: "" },
      defaultChoice("physician", me),
    ];
    expect(signersOf(move(choices, 2, -1))).toEqual([
      { role: "patient" },
      { role: "physician", staff_user_id: me },
      { role: "legal_representative", name: "Maria Muster" },
    ]);
  });

  it("does not move past either end", () => {
    expect(move([1, 2, 3], 0, -1)).toEqual([1, 2, 3]);
    expect(move([1, 2, 3], 2, 1)).toEqual([1, 2, 3]);
  });
});
