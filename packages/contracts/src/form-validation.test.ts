import { describe, expect, it } from "vitest";
import {
  acceptsFileType,
  attachment,
  checkFieldValue,
  fieldProblemCodes,
  fieldProblemMessage,
  isBlankValue,
  matchesPattern,
  MAX_FILES_PER_FIELD,
  MAX_SIGNATURE_CHARS,
  normalizePhoneValues,
  templateSchema,
  validateFormValues,
  visibleFieldKeys,
  visibleFields,
  visibleValues,
  type FormField,
  type TemplateSchema,
} from "./index";

const text = (extra: Partial<Extract<FormField, { type: "text" }>> = {}): FormField => ({
  id: "t",
  key: "t",
  label: "T",
  type: "text",
  ...extra,
});
const code = (field: FormField, value: unknown) => checkFieldValue(field, value)?.code ?? null;
const file = (extra: Record<string, unknown> = {}) => ({
  name: "befund.pdf",
  path: "form-uploads/1/abc",
  size: 100,
  type: "application/pdf",
  ...extra,
});
const MB = 1024 * 1024;

describe("blank values and required", () => {
  it("treats absent, null, empty or blank text and empty lists as blank, and nothing else", () => {
    for (const v of [undefined, null, "", "   \n", []]) expect(isBlankValue(v), JSON.stringify(v)).toBe(true);
    for (const v of [0, false, "a", ["a"], {}]) expect(isBlankValue(v), JSON.stringify(v)).toBe(false);
  });

  it("reports required only for required fields, and an unchecked required checkbox as must_be_checked", () => {
    expect(checkFieldValue(text({ required: true }), "  ")).toEqual({ code: "required" });
    expect(checkFieldValue(text(), "  ")).toBeNull();
    expect(checkFieldValue(text(), undefined)).toBeNull();
    const box: FormField = { id: "c", key: "c", label: "C", type: "checkbox", required: true };
    expect(code(box, false)).toBe("must_be_checked");
    expect(code(box, undefined)).toBe("must_be_checked");
    expect(code(box, true)).toBeNull();
    expect(code({ ...box, required: false }, false)).toBeNull();
    expect(code(box, "true")).toBe("not_boolean");
    const multi: FormField = { id: "m", key: "m", label: "M", type: "multiselect", options: ["a"], required: true };
    expect(code(multi, [])).toBe("required");
  });
});

describe("text, email and phone", () => {
  it("holds minLength and maxLength at their exact boundaries", () => {
    const f = text({ minLength: 2, maxLength: 5 });
    expect(checkFieldValue(f, "a")).toEqual({ code: "too_short", params: { min: 2 } });
    expect(code(f, "ab")).toBeNull();
    expect(code(f, "abcde")).toBeNull();
    expect(checkFieldValue(f, "abcdef")).toEqual({ code: "too_long", params: { max: 5 } });
    expect(code(f, 12)).toBe("not_text");
  });

  it("caps text at 10000 and textarea at 100000 characters whatever the template says", () => {
    expect(code(text(), "x".repeat(10_000))).toBeNull();
    expect(checkFieldValue(text(), "x".repeat(10_001))).toEqual({ code: "too_long", params: { max: 10_000 } });
    const area: FormField = { id: "a", key: "a", label: "A", type: "textarea" };
    expect(code(area, "x".repeat(100_000))).toBeNull();
    expect(checkFieldValue(area, "x".repeat(100_001))).toEqual({ code: "too_long", params: { max: 100_000 } });
  });

  it("matches patterns against the whole value, alternatives included, with unicode", () => {
    const zip = text({ pattern: "[0-9]{5}" });
    expect(code(zip, "50667")).toBeNull();
    for (const bad of ["5066", "506671", "a50667", "50667\n"]) expect(code(zip, bad), bad).toBe("pattern");
    expect(matchesPattern("a|b", "a")).toBe(true);
    expect(matchesPattern("a|b", "ab")).toBe(false);
    expect(matchesPattern("\\p{L}+", "Müller")).toBe(true);
    expect(matchesPattern("^x$", "x")).toBe(true);
    expect(matchesPattern(".", "😀")).toBe(true);
    expect(matchesPattern("[😀ä]{2}", "ä😀")).toBe(true);
    expect(matchesPattern("\\u00e4\\u{1F600}", "ä😀")).toBe(true);
    expect(matchesPattern("\\\\u00e4", "\\u00e4")).toBe(true);
  });

  it("runs patterns in linear time: (a+)+b on 100,000 characters answers at once", () => {
    // A backtracking engine takes exponential time here; the test would time out instead of failing.
    expect(matchesPattern("(a+)+b", "a".repeat(100_000))).toBe(false);
    const area: FormField = { id: "a", key: "a", label: "A", type: "textarea", pattern: "(a|aa)+$|(a+)+b" };
    expect(checkFieldValue(area, `${"a".repeat(99_999)}!`)).toEqual({ code: "pattern" });
    expect(code(area, "a".repeat(100_000))).toBeNull();
  });

  it("refuses every value of a pattern RE2 cannot run (saved before patterns ran on RE2)", () => {
    expect(matchesPattern("(a)\\1", "aa")).toBe(false);
    expect(matchesPattern("(?=a)a", "a")).toBe(false);
  });

  it("checks e-mail addresses and phone numbers (German numbers may be typed nationally)", () => {
    const email: FormField = { id: "e", key: "e", label: "E", type: "email" };
    expect(code(email, "erika@example.org")).toBeNull();
    for (const bad of ["erika", "erika@example", "er ika@example.org"]) expect(code(email, bad), bad).toBe("email");
    for (const good of ["a@b.c", "a.b@c.d.e", "x@.a.b", "x@a..b"]) expect(code(email, good), good).toBeNull();
    for (const bad of ["@b.c", "a@b.", "a@.b", "a@b@c.d", "a@b.c\n", `a@${".".repeat(9_000)} `])
      expect(code(email, bad), bad).toBe("email");
    const phone: FormField = { id: "p", key: "p", label: "P", type: "phone", maxLength: 20 };
    for (const good of ["+491701234567", "0170 1234567", "0221 1234567", "+44 20 7946 0958"])
      expect(code(phone, good), good).toBeNull();
    for (const bad of ["12", "+49 170", "0000000000"]) expect(code(phone, bad), bad).toBe("phone");
    expect(code(phone, "+49 170 1234567 0000000")).toBe("too_long");
  });
  it("reads national phone numbers as numbers of the organization's country, and normalizes them to E.164", () => {
    const phone: FormField = { id: "p", key: "p", label: "P", type: "phone" };
    // A Swiss clinic's patients type Swiss numbers; the same digits are not a Swiss number read as German.
    expect(checkFieldValue(phone, "079 123 45 67", { phoneCountry: "CH" })).toBeNull();
    expect(checkFieldValue(phone, "0664 1234567", { phoneCountry: "CH" })?.code).toBe("phone");
    expect(checkFieldValue(phone, "0664 1234567", { phoneCountry: "DE" })).toBeNull();
    expect(checkFieldValue(phone, "+44 20 7946 0958", { phoneCountry: "CH" })).toBeNull();
    const schema: TemplateSchema = { version: 1, fields: [phone, text()] };
    expect(validateFormValues(schema, { p: "0664 1234567" }, { phoneCountry: "CH" })).toEqual([
      { key: "p", code: "phone" },
    ]);
    expect(normalizePhoneValues(schema, { p: "079 123 45 67", t: "079 123 45 67" }, { phoneCountry: "CH" })).toEqual({
      p: "+41791234567",
      t: "079 123 45 67",
    });
    expect(normalizePhoneValues(schema, { p: "0049 170 1234567" })).toEqual({ p: "+491701234567" });
    // An unknown country falls back to DE rather than refusing every national number.
    expect(normalizePhoneValues(schema, { p: "0170 1234567" }, { phoneCountry: "XX" })).toEqual({ p: "+491701234567" });
  });
});

describe("numbers and dates", () => {
  const number: FormField = { id: "n", key: "n", label: "N", type: "number", min: 0, max: 130 };
  const date: FormField = { id: "d", key: "d", label: "D", type: "date", min: "1900-01-01", max: "2024-12-31" };

  it("holds min and max for numbers inclusively and refuses what is not a finite number", () => {
    expect(code(number, 0)).toBeNull();
    expect(code(number, 130)).toBeNull();
    expect(checkFieldValue(number, -0.5)).toEqual({ code: "too_small", params: { min: 0 } });
    expect(checkFieldValue(number, 130.01)).toEqual({ code: "too_large", params: { max: 130 } });
    for (const bad of ["5", Number.NaN, Number.POSITIVE_INFINITY, true])
      expect(code(number, bad), String(bad)).toBe("not_number");
  });

  it("accepts only real calendar dates and holds min and max inclusively", () => {
    expect(code(date, "1900-01-01")).toBeNull();
    expect(code(date, "2024-12-31")).toBeNull();
    expect(code(date, "2024-02-29")).toBeNull();
    for (const bad of ["2023-02-29", "2024-13-01", "2024-1-01", "01.05.1983", "2024-04-31", 20240101])
      expect(code(date, bad), String(bad)).toBe("not_date");
    expect(checkFieldValue(date, "1899-12-31")).toEqual({ code: "date_too_early", params: { min: "1900-01-01" } });
    expect(checkFieldValue(date, "2025-01-01")).toEqual({ code: "date_too_late", params: { max: "2024-12-31" } });
  });
});

describe("choices", () => {
  const options = ["gesetzlich", { value: "privat", label: "Privat" }];

  it("accepts option values (not labels) for select and radio", () => {
    for (const type of ["select", "radio"] as const) {
      const f = { id: "s", key: "s", label: "S", type, options } as FormField;
      expect(code(f, "gesetzlich")).toBeNull();
      expect(code(f, "privat")).toBeNull();
      expect(code(f, "Privat")).toBe("not_option");
      expect(code(f, ["privat"])).toBe("not_option");
    }
  });

  it("accepts a list of distinct options for multiselect", () => {
    const f: FormField = { id: "m", key: "m", label: "M", type: "multiselect", options };
    expect(code(f, ["gesetzlich", "privat"])).toBeNull();
    expect(code(f, ["privat", "privat"])).toBe("duplicate_option");
    expect(code(f, ["privat", "cats"])).toBe("not_options");
    expect(code(f, "privat")).toBe("not_options");
    expect(code(f, [1])).toBe("not_options");
  });
});

describe("signatures", () => {
  const f: FormField = { id: "s", key: "s", label: "S", type: "signature" };
  const prefix = "data:image/png;base64,";
  /** A PNG signature and IHDR of the given size, then `rest` base64 characters of "pixels". */
  const png = (width: number, height: number, rest = "") => {
    const header = Buffer.alloc(33);
    header.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    header.writeUInt32BE(width, 16);
    header.writeUInt32BE(height, 20);
    header.set([8, 6], 24);
    return prefix + header.toString("base64") + rest;
  };
  const jpeg = (width: number, height: number) => {
    const bytes = Buffer.from([
      0xff,
      0xd8,
      0xff,
      0xc0,
      0,
      17,
      8,
      height >> 8,
      height & 255,
      width >> 8,
      width & 255,
      3,
      1,
      0x22,
      0,
      2,
      0x11,
      1,
      3,
      0x11,
      1,
      0xff,
      0xda,
    ]);
    return `data:image/jpeg;base64,${bytes.toString("base64")}`;
  };

  it("accepts PNG and JPEG data URLs up to MAX_SIGNATURE_CHARS and the pixel budget", () => {
    expect(code(f, png(1170, 600))).toBeNull();
    expect(code(f, jpeg(1600, 400))).toBeNull();
    expect(code(f, png(4000, 1000))).toBeNull();
    const long = png(300, 100, "AAAA");
    expect(code(f, long + "A".repeat(MAX_SIGNATURE_CHARS - long.length))).toBeNull();
    expect(code(f, long + "A".repeat(MAX_SIGNATURE_CHARS - long.length + 1))).toBe("signature_too_large");
  });

  it("refuses SVG, other formats, bytes that are not the declared image, and broken base64", () => {
    const svg = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString("base64")}`;
    const notPng = `${prefix}${Buffer.from("not a png at all, definitely not a png image").toString("base64")}`;
    for (const bad of [
      svg,
      "data:image/gif;base64,R0lG",
      "https://x.test/s.png",
      `${prefix}not base64!`,
      notPng,
      png(300, 100).replace("image/png", "image/jpeg"),
      1,
    ]) {
      expect(code(f, bad), String(bad)).toBe("signature_invalid");
    }
  });

  it("refuses images over 4000 pixels a side or 4 megapixels, with their size in the message", () => {
    for (const [width, height] of [
      [10000, 10000],
      [4001, 100],
      [100, 4001],
      [2500, 2000],
    ] as const) {
      expect(code(f, png(width, height)), `${width}x${height}`).toBe("signature_too_large");
    }
    expect(code(f, jpeg(5000, 5000))).toBe("signature_too_large");
    const found = checkFieldValue(f, png(10000, 10000))!;
    expect(fieldProblemMessage(found)).toBe(
      "the signature image is 10000 × 10000 pixels; at most 4000 × 4000 and 4 megapixels are accepted",
    );
  });
});

describe("files", () => {
  const f: FormField = { id: "f", key: "f", label: "F", type: "file", accept: ".pdf,image/*,text/plain", maxSizeMb: 1 };

  it("takes a list of attachments of an accepted type and at most maxSizeMb each", () => {
    expect(code(f, [file()])).toBeNull();
    expect(code(f, [file({ size: MB })])).toBeNull();
    expect(checkFieldValue(f, [file({ size: MB + 1 })])).toEqual({ code: "file_too_large", params: { maxMb: 1 } });
    expect(code(f, [file({ name: "SCAN.PDF", type: "application/octet-stream" })])).toBeNull();
    expect(code(f, [file({ name: "foto", type: "image/jpeg" })])).toBeNull();
    expect(code(f, [file({ name: "notes", type: "TEXT/PLAIN" })])).toBeNull();
    expect(checkFieldValue(f, [file({ name: "x.docx", type: "application/msword" })])).toEqual({
      code: "file_type",
      params: { type: "application/msword" },
    });
  });

  it("refuses what is not a list of upload references, and more than MAX_FILES_PER_FIELD", () => {
    for (const bad of [
      file(),
      "befund.pdf",
      [file({ extra: 1 })],
      [file({ size: -1 })],
      [file({ size: 1.5 })],
      [file({ name: "" })],
      [{ path: "x" }],
    ])
      expect(code(f, bad), JSON.stringify(bad)).toBe("files_invalid");
    const many = Array.from({ length: MAX_FILES_PER_FIELD + 1 }, (_, i) => file({ path: `p${i}` }));
    expect(checkFieldValue(f, many)).toEqual({ code: "too_many_files", params: { max: MAX_FILES_PER_FIELD } });
    expect(code(f, many.slice(1))).toBeNull();
  });

  it("agrees with the attachment contract", () => {
    const samples = [
      file(),
      file({ url: "https://x.test/a" }),
      file({ url: 3 }),
      file({ type: "t".repeat(256) }),
      file({ path: "p".repeat(301) }),
      file({ name: 5 }),
      file({ more: true }),
      null,
    ];
    for (const sample of samples)
      expect(code({ ...f, accept: undefined, maxSizeMb: undefined }, [sample]) === null, JSON.stringify(sample)).toBe(
        attachment.safeParse(sample).success,
      );
  });

  it("matches accept lists by extension, wildcard and exact type, ignoring case and spaces", () => {
    expect(acceptsFileType(undefined, "application/zip", "a.zip")).toBe(true);
    expect(acceptsFileType("", "application/zip", "a.zip")).toBe(true);
    expect(acceptsFileType(" .pdf , image/* ", "image/png", "a.png")).toBe(true);
    expect(acceptsFileType("image/*", "application/pdf", "image.pdf")).toBe(false);
    expect(acceptsFileType("application/pdf", "application/pdf+x", "a")).toBe(false);
    expect(acceptsFileType(".pdf", "application/pdf", "a.pdf.exe")).toBe(false);
  });

  it("accepts any file for */* (alone or in a list), as the builder and browsers read it", () => {
    expect(acceptsFileType("*/*", "application/zip", "a.zip")).toBe(true);
    expect(acceptsFileType(" */* ", "application/octet-stream", "scan")).toBe(true);
    expect(acceptsFileType(".pdf,*/*", "text/plain", "a.txt")).toBe(true);
  });
});

describe("validateFormValues", () => {
  const schema: TemplateSchema = {
    version: 1,
    fields: [
      { id: "1", type: "heading", key: "intro", label: "Intro" },
      text({ id: "2", key: "name", required: true, maxLength: 20 }),
      { id: "3", type: "checkbox", key: "consent", label: "OK", required: true },
    ],
  };

  it("names unknown and display-only keys first, then each field in schema order", () => {
    expect(validateFormValues(schema, { shoe: 42, intro: "x", consent: false })).toEqual([
      { key: "shoe", code: "unknown_field" },
      { key: "intro", code: "display_only" },
      { key: "name", code: "required" },
      { key: "consent", code: "must_be_checked" },
    ]);
    expect(validateFormValues(schema, { name: "Erika", consent: true })).toEqual([]);
    expect(code(schema.fields[0]!, "x")).toBe("display_only");
    expect(code(schema.fields[0]!, undefined)).toBeNull();
  });

  it("has an English message for every code, with its params filled in", () => {
    const messages = fieldProblemCodes.map((c) =>
      fieldProblemMessage({ code: c, params: { min: 2, max: 20, maxMb: 5, type: "image/gif" } }),
    );
    expect(new Set(messages).size).toBe(fieldProblemCodes.length);
    for (const m of messages) expect(m).not.toMatch(/undefined/);
    expect(fieldProblemMessage({ code: "too_long", params: { max: 20 } })).toBe("must be at most 20 characters");
    expect(fieldProblemMessage({ code: "required" })).toBe("is required");
    expect(fieldProblemMessage({ code: "date_too_early", params: { min: "1900-01-01" } })).toBe(
      "must be on or after 1900-01-01",
    );
    expect(fieldProblemMessage({ code: "file_type", params: { type: "image/gif" } })).toBe(
      "file type image/gif is not accepted",
    );
  });
});

describe("conditional fields", () => {
  const when = (visibleWhen: unknown, referenced: FormField, value: unknown) => {
    const field = { ...text({ id: "x", key: "x" }), visibleWhen } as FormField;
    const schema = { version: 1, fields: [referenced, field] } as TemplateSchema;
    return visibleFieldKeys(schema, { [referenced.key!]: value }).has("x");
  };
  const radio: FormField = { id: "r", key: "r", label: "R", type: "radio", options: ["yes", "no"] };
  const multi: FormField = { id: "m", key: "m", label: "M", type: "multiselect", options: ["a", "b", "c"] };
  const box: FormField = { id: "c", key: "c", label: "C", type: "checkbox" };
  const num: FormField = { id: "n", key: "n", label: "N", type: "number" };

  it("evaluates equals and notEquals, on a multiselect as contains", () => {
    expect(when({ field: "r", operator: "equals", value: "yes" }, radio, "yes")).toBe(true);
    expect(when({ field: "r", operator: "equals", value: "yes" }, radio, "no")).toBe(false);
    expect(when({ field: "r", operator: "equals", value: "yes" }, radio, undefined)).toBe(false);
    expect(when({ field: "r", operator: "notEquals", value: "yes" }, radio, "no")).toBe(true);
    // Unanswered is neither equal nor unequal: "is not yes" does not show a follow-up on a blank form.
    expect(when({ field: "r", operator: "notEquals", value: "yes" }, radio, undefined)).toBe(false);
    expect(when({ field: "m", operator: "notEquals", value: "c" }, multi, [])).toBe(false);
    expect(when({ field: "r", operator: "notEquals", value: "yes" }, radio, "yes")).toBe(false);
    expect(when({ field: "m", operator: "equals", value: "b" }, multi, ["a", "b"])).toBe(true);
    expect(when({ field: "m", operator: "equals", value: "c" }, multi, ["a", "b"])).toBe(false);
    expect(when({ field: "m", operator: "notEquals", value: "c" }, multi, ["a", "b"])).toBe(true);
    expect(when({ field: "c", operator: "equals", value: true }, box, true)).toBe(true);
    expect(when({ field: "c", operator: "equals", value: true }, box, "true")).toBe(false);
    expect(when({ field: "c", operator: "equals", value: false }, box, false)).toBe(true);
    expect(when({ field: "c", operator: "equals", value: false }, box, undefined)).toBe(true);
    expect(when({ field: "c", operator: "notEquals", value: false }, box, undefined)).toBe(false);
    expect(when({ field: "c", operator: "equals", value: true }, box, undefined)).toBe(false);
    expect(when({ field: "n", operator: "equals", value: 3 }, num, 3)).toBe(true);
    expect(when({ field: "n", operator: "equals", value: 3 }, num, "3")).toBe(false);
  });

  it("evaluates in, on a multiselect as contains any", () => {
    expect(when({ field: "r", operator: "in", value: ["yes", "no"] }, radio, "no")).toBe(true);
    expect(when({ field: "r", operator: "in", value: ["yes"] }, radio, "no")).toBe(false);
    expect(when({ field: "m", operator: "in", value: ["c", "b"] }, multi, ["a", "b"])).toBe(true);
    expect(when({ field: "m", operator: "in", value: ["c"] }, multi, ["a", "b"])).toBe(false);
    expect(when({ field: "n", operator: "in", value: [1, 2] }, num, 2)).toBe(true);
    expect(when({ field: "r", operator: "in", value: ["yes"] }, radio, undefined)).toBe(false);
  });

  it("compares numbers with atLeast, atMost and between (both ends included); unanswered holds none", () => {
    expect(when({ field: "n", operator: "atLeast", value: 3 }, num, 3)).toBe(true);
    expect(when({ field: "n", operator: "atLeast", value: 3 }, num, 2.5)).toBe(false);
    expect(when({ field: "n", operator: "atMost", value: 3 }, num, 3)).toBe(true);
    expect(when({ field: "n", operator: "atMost", value: 3 }, num, 4)).toBe(false);
    expect(when({ field: "n", operator: "between", value: [10, 14] }, num, 10)).toBe(true);
    expect(when({ field: "n", operator: "between", value: [10, 14] }, num, 14)).toBe(true);
    expect(when({ field: "n", operator: "between", value: [10, 14] }, num, 15)).toBe(false);
    expect(when({ field: "n", operator: "atMost", value: 3 }, num, undefined)).toBe(false);
    expect(when({ field: "n", operator: "atLeast", value: 0 }, num, "5")).toBe(false);
  });

  it("evaluates filled and empty; blank text, an empty list and an unchecked checkbox are empty", () => {
    for (const [field, value, filled] of [
      [radio, "yes", true],
      [radio, undefined, false],
      [text({ id: "r", key: "r" }), "  ", false],
      [multi, [], false],
      [multi, ["a"], true],
      [box, false, false],
      [box, true, true],
      [num, 0, true],
    ] as const) {
      expect(
        when({ field: field.key, operator: "filled" }, field, value),
        `${field.type} ${JSON.stringify(value)}`,
      ).toBe(filled);
      expect(
        when({ field: field.key, operator: "empty" }, field, value),
        `${field.type} ${JSON.stringify(value)}`,
      ).toBe(!filled);
    }
  });

  it("combines conditions with all and any", () => {
    const schema: TemplateSchema = {
      version: 1,
      fields: [
        radio,
        multi,
        {
          ...text({ id: "all", key: "all" }),
          visibleWhen: {
            all: [
              { field: "r", operator: "equals", value: "yes" },
              { field: "m", operator: "equals", value: "a" },
            ],
          },
        },
        {
          ...text({ id: "any", key: "any" }),
          visibleWhen: {
            any: [
              { field: "r", operator: "equals", value: "yes" },
              { field: "m", operator: "equals", value: "a" },
            ],
          },
        },
      ],
    };
    const keys = (values: Record<string, unknown>) =>
      [...visibleFieldKeys(schema, values)].filter((k) => k === "all" || k === "any");
    expect(keys({ r: "yes", m: ["a"] })).toEqual(["all", "any"]);
    expect(keys({ r: "yes", m: ["b"] })).toEqual(["any"]);
    expect(keys({ r: "no", m: ["a"] })).toEqual(["any"]);
    expect(keys({ r: "no", m: ["b"] })).toEqual([]);
  });

  const chain: TemplateSchema = {
    version: 1,
    fields: [
      radio,
      {
        id: "h",
        type: "heading",
        label: "Schwangerschaft",
        visibleWhen: { field: "r", operator: "equals", value: "yes" },
      },
      {
        id: "w",
        type: "number",
        key: "week",
        label: "Woche",
        required: true,
        max: 42,
        visibleWhen: { field: "r", operator: "equals", value: "yes" },
      },
      { ...text({ id: "note", key: "note", required: true }), visibleWhen: { field: "week", operator: "filled" } },
      text({ id: "always", key: "always" }),
    ],
  };

  it("skips a hidden required field and drops hidden values, also down a chain whose middle is hidden", () => {
    const values = { r: "no", week: 99, note: "stale", always: "x" };
    expect(visibleFieldKeys(chain, values)).toEqual(new Set(["r", "always"]));
    expect(validateFormValues(chain, values)).toEqual([]);
    expect(visibleValues(chain, values)).toEqual({ r: "no", always: "x" });
    expect(validateFormValues(chain, { r: "yes", week: 43 })).toEqual([
      { key: "week", code: "too_large", params: { max: 42 } },
      { key: "note", code: "required" },
    ]);
    expect(validateFormValues(chain, { r: "yes" })).toEqual([{ key: "week", code: "required" }]);
    expect(visibleValues(chain, { r: "yes", week: 12, note: "n", shoe: 1 })).toEqual({ r: "yes", week: 12, note: "n" });
  });

  it("tells whether a display element is shown", () => {
    const heading = chain.fields[1]!;
    expect(visibleFields(chain, { r: "yes" })).toContain(heading);
    expect(visibleFields(chain, { r: "no" })).not.toContain(heading);
  });
});

describe("visibleWhen in the template schema", () => {
  const radio = { id: "1", type: "radio", key: "r", label: "R", options: ["yes", "no"] };
  const parse = (visibleWhen: unknown, before: unknown[] = [radio], after: unknown[] = []) =>
    templateSchema.safeParse({
      version: 1,
      fields: [...before, { id: "x", type: "text", key: "x", label: "X", visibleWhen }, ...after],
    });
  const issue = (visibleWhen: unknown, before?: unknown[], after?: unknown[]) => {
    const result = parse(visibleWhen, before, after);
    expect(result.success, JSON.stringify(visibleWhen)).toBe(false);
    const first = result.error!.issues[0]!;
    return `${first.path.join(".")}: ${first.message}`;
  };

  it("accepts conditions on earlier fields, on display elements too", () => {
    expect(parse({ field: "r", operator: "equals", value: "yes" }).success).toBe(true);
    expect(
      parse({
        any: [
          { field: "r", operator: "filled" },
          { field: "r", operator: "in", value: ["yes", "no"] },
        ],
      }).success,
    ).toBe(true);
    const heading = templateSchema.safeParse({
      version: 1,
      fields: [radio, { id: "h", type: "heading", label: "H", visibleWhen: { field: "r", operator: "empty" } }],
    });
    expect(heading.success).toBe(true);
  });

  it("refuses unknown, later, own and display-only keys, naming the path", () => {
    expect(issue({ field: "nope", operator: "filled" })).toBe(
      'fields.1.visibleWhen.field: refers to unknown field "nope"',
    );
    expect(
      issue({ field: "later", operator: "filled" }, [radio], [{ id: "9", type: "text", key: "later", label: "L" }]),
    ).toBe(
      'fields.1.visibleWhen.field: refers to "later", which comes later; conditions may only refer to earlier fields',
    );
    expect(issue({ field: "x", operator: "filled" })).toBe(
      "fields.1.visibleWhen.field: a field cannot depend on itself",
    );
    expect(
      issue(
        {
          all: [
            { field: "r", operator: "filled" },
            { field: "h", operator: "filled" },
          ],
        },
        [radio, { id: "h", type: "heading", key: "h", label: "H" }],
      ),
    ).toBe('fields.2.visibleWhen.all.1.field: refers to "h", a display element without a value');
  });

  it("refuses missing, superfluous and ill-typed values", () => {
    const number = { id: "n", type: "number", key: "n", label: "N" };
    const box = { id: "c", type: "checkbox", key: "c", label: "C" };
    const upload = { id: "f", type: "file", key: "f", label: "F" };
    const cases: [unknown, unknown[], string][] = [
      [{ field: "r", operator: "equals" }, [radio], "fields.1.visibleWhen.value: is required for equals"],
      [
        { field: "r", operator: "filled", value: "yes" },
        [radio],
        "fields.1.visibleWhen.value: must be left out for filled",
      ],
      [{ field: "r", operator: "in", value: "yes" }, [radio], "fields.1.visibleWhen.value: must be a list for in"],
      [
        { field: "r", operator: "notEquals", value: ["yes"] },
        [radio],
        "fields.1.visibleWhen.value: must be a single value for notEquals; use in for a list",
      ],
      [
        { field: "r", operator: "equals", value: "maybe" },
        [radio],
        'fields.1.visibleWhen.value: "maybe" is not an option of "r"',
      ],
      [
        { field: "n", operator: "equals", value: "3" },
        [number],
        'fields.1.visibleWhen.value: must be a number like the values of "n"',
      ],
      [
        { field: "n", operator: "in", value: [1, "2"] },
        [number],
        'fields.1.visibleWhen.value: must be a number like the values of "n"',
      ],
      [
        { field: "c", operator: "equals", value: "true" },
        [box],
        'fields.1.visibleWhen.value: must be a boolean like the values of "c"',
      ],
      [
        { field: "c", operator: "in", value: [1] },
        [box],
        "fields.1.visibleWhen.operator: use equals or notEquals for checkbox fields",
      ],
      [
        { field: "f", operator: "equals", value: "a" },
        [upload],
        "fields.1.visibleWhen.operator: only filled and empty apply to file fields",
      ],
      [
        { field: "r", operator: "equal", value: "yes" },
        [radio],
        "fields.1.visibleWhen: operator: must be one of equals, notEquals, in, filled, empty, atLeast, atMost, between",
      ],
      [
        { field: "r", operator: "atLeast", value: 2 },
        [radio],
        "fields.1.visibleWhen.operator: atLeast compares numbers: it applies to number and score fields",
      ],
      [
        { field: "n", operator: "between", value: [5] },
        [number],
        "fields.1.visibleWhen.value: must be [min, max] for between",
      ],
      [
        { field: "n", operator: "between", value: [5, 1] },
        [number],
        "fields.1.visibleWhen.value: min must not exceed max",
      ],
      [
        { all: [{ field: "r", operator: "filled", extra: 1 }] },
        [radio],
        'fields.1.visibleWhen.all.0: Unrecognized key: "extra"',
      ],
      [{ any: [] }, [radio], "fields.1.visibleWhen.any: needs 1 to 20 conditions"],
      [
        { all: Array.from({ length: 21 }, () => ({ field: "r", operator: "filled" })) },
        [radio],
        "fields.1.visibleWhen: all: needs 1 to 20 conditions",
      ],
      [
        "r == yes",
        [radio],
        "fields.1.visibleWhen: must be a condition {field, operator, value} or {all: [...]} or {any: [...]}",
      ],
    ];
    for (const [visibleWhen, before, expected] of cases)
      expect(issue(visibleWhen, before), JSON.stringify(visibleWhen)).toBe(expected);
  });
});
