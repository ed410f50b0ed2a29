import { z } from "zod";
import { isoDateTime, listLimit } from "./common";

export const templateStatuses = ["draft", "active", "archived"] as const;
export const templateStatus = z.enum(templateStatuses, { message: "must be one of draft, active, archived" });

const fieldKey = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_.-]{0,99}$/, {
    message: "must start with a letter and contain only letters, digits, _ . - (at most 100)",
  });
const text = (max: number) => z.string().max(max, { message: `must be at most ${max} characters` });
const option = z.union([
  text(200),
  z.strictObject({ value: text(200), label: text(500) }),
]);

const base = {
  id: z.string().min(1).max(100),
  key: fieldKey,
  label: text(500),
  required: z.boolean().optional(),
  placeholder: text(200).optional(),
  helpText: text(1000).optional(),
};
const lengths = {
  minLength: z.number().int().min(0).max(100_000).optional(),
  maxLength: z.number().int().min(1).max(100_000).optional(),
  pattern: text(500)
    .refine(
      (p) => {
        try {
          new RegExp(p, "u");
          return true;
        } catch {
          return false;
        }
      },
      { message: "must be a valid regular expression" },
    )
    .optional(),
};
const isoDate = z.iso.date({ message: "must be a date (YYYY-MM-DD)" });

export const formField = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ ...base, type: z.literal("text"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("textarea"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("email"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("phone"), ...lengths }),
    z.strictObject({ ...base, type: z.literal("number"), min: z.number().optional(), max: z.number().optional() }),
    z.strictObject({ ...base, type: z.literal("date"), min: isoDate.optional(), max: isoDate.optional() }),
    z.strictObject({ ...base, type: z.literal("select"), options: z.array(option).min(1).max(500) }),
    z.strictObject({ ...base, type: z.literal("radio"), options: z.array(option).min(1).max(500) }),
    z.strictObject({ ...base, type: z.literal("multiselect"), options: z.array(option).min(1).max(500) }),
    z.strictObject({ ...base, type: z.literal("checkbox") }),
    z.strictObject({
      ...base,
      type: z.literal("file"),
      accept: text(500).optional(),
      maxSizeMb: z.number().positive().max(25).optional(),
    }),
    z.strictObject({ ...base, type: z.literal("signature") }),
    z.strictObject({ ...base, key: fieldKey.optional(), type: z.literal("heading") }),
    z.strictObject({ ...base, key: fieldKey.optional(), type: z.literal("paragraph") }),
  ],
  {
    error: (issue) =>
      issue.code === "invalid_union"
        ? "type must be one of text, textarea, email, phone, number, date, select, radio, checkbox, multiselect, file, signature, heading, paragraph"
        : undefined,
  },
);
export type FormField = z.infer<typeof formField>;

export const templateSchema = z
  .strictObject({
    version: z.number({ message: "must be a number" }).finite(),
    fields: z.array(formField).max(500, { message: "at most 500 fields" }),
  })
  .superRefine((schema, ctx) => {
    const keys = new Set<string>();
    const ids = new Set<string>();
    schema.fields.forEach((field, index) => {
      if (field.key !== undefined) {
        if (keys.has(field.key)) ctx.addIssue({ code: "custom", path: ["fields", index, "key"], message: `duplicate key "${field.key}"` });
        keys.add(field.key);
      }
      if (ids.has(field.id)) ctx.addIssue({ code: "custom", path: ["fields", index, "id"], message: `duplicate id "${field.id}"` });
      ids.add(field.id);
      const range = field as { min?: number | string; max?: number | string; minLength?: number; maxLength?: number };
      if (range.min !== undefined && range.max !== undefined && range.min > range.max)
        ctx.addIssue({ code: "custom", path: ["fields", index, "min"], message: "min must not exceed max" });
      if (range.minLength !== undefined && range.maxLength !== undefined && range.minLength > range.maxLength)
        ctx.addIssue({ code: "custom", path: ["fields", index, "minLength"], message: "minLength must not exceed maxLength" });
    });
  });
export type TemplateSchema = z.infer<typeof templateSchema>;

export const emptyTemplateSchema: TemplateSchema = { version: 1, fields: [] };

const title = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .trim()
  .min(1, { message: "must be 1 to 120 characters" })
  .max(120, { message: "must be 1 to 120 characters" });
const description = z.string().max(1000, { message: "must be at most 1000 characters" });

export const templateIdentifier = z
  .string({ message: "is required" })
  .min(1, { message: "is required" })
  .max(200);

export const createTemplateInput = z.object({
  title,
  description: description.nullish(),
  status: templateStatus.default("draft"),
  schema: templateSchema.default(emptyTemplateSchema),
});
export type CreateTemplateInput = z.input<typeof createTemplateInput>;

export const updateTemplateInput = z.object({
  identifier: templateIdentifier,
  title: title.optional(),
  description: description.nullish(),
  status: templateStatus.optional(),
  schema: templateSchema.optional(),
});
export type UpdateTemplateInput = z.input<typeof updateTemplateInput>;

export const templateByIdentifierInput = z.object({ identifier: templateIdentifier });

/** F3 loads only active templates; staff may look at any status. */
export const getTemplateInput = z.object({
  identifier: templateIdentifier,
  activeOnly: z.boolean().default(true),
});

export const listTemplatesInput = z.object({ limit: listLimit(300, 300) });

export const template = z.object({
  id: z.uuid(),
  identifier: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  status: templateStatus,
  schema: templateSchema,
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});
export type Template = z.infer<typeof template>;

export const templateListItem = template.pick({ identifier: true, title: true, status: true, updatedAt: true });
export type TemplateListItem = z.infer<typeof templateListItem>;
