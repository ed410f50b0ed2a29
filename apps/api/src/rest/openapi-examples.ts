/**
 * Example values for the OpenAPI document, made from the operation's own JSON Schema, so every
 * operation shows a request and a success body that the schema accepts (Redocly checks them
 * against it). A route's `example` in the table replaces them where a real call needs more than
 * the schema can tell (existing identifiers, a PDF address).
 */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  default?: unknown;
  examples?: unknown[];
  [key: string]: unknown;
};

const FORMAT_SAMPLES: Record<string, string> = {
  uuid: "3f2b8c1e-5d4a-4b6f-9c7e-1a2b3c4d5e6f",
  "date-time": "2026-03-02T09:30:00.000Z",
  date: "2026-03-02",
  email: "station4@klinik.example",
  uri: "https://klinik.example/path",
  url: "https://klinik.example/path",
  binary: "",
};

/** Property names whose plain string sample would say nothing. */
const NAMED_SAMPLES: Record<string, string> = {
  templateIdentifier: "anamnese-2026",
  identifier: "anamnese-2026",
  rnummer: "R-2026-0042",
  phone: "+491701234567",
  patient_id: "P-100231",
  title: "Anamnese",
  name: "Anamnese",
  draftKey: "case-100231",
  institution_id: "klinik-nord",
  reason: "has_signature_requests",
  primaryColor: "#0b5cad",
  accentColor: "#e8a33d",
  logo_url: "https://klinik.example/logo.png",
};

/** A value `schema` accepts, preferring what the schema itself offers (const, enum, default). */
export function sampleOf(schema: JsonSchema | undefined, name = "", depth = 0): unknown {
  if (!schema || depth > 8) return null;
  if (schema.examples?.length) return schema.examples[0];
  if ("const" in schema) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants?.length) {
    const concrete = variants.find((v) => v.type !== "null") ?? variants[0];
    return sampleOf(concrete, name, depth + 1);
  }
  if (schema.allOf?.length) return sampleOf(Object.assign({}, ...schema.allOf) as JsonSchema, name, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(key) || depth < 2) out[key] = sampleOf(property, key, depth + 1);
      }
      return out;
    }
    case "array": {
      const count = Math.max(1, schema.minItems ?? 1);
      return Array.from({ length: count }, () => sampleOf(schema.items, name, depth + 1));
    }
    case "integer":
    case "number": {
      // 1 where allowed: counts and sizes read naturally, and a huge negative bound is no example.
      const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
      const value = Math.max(low ?? 1, 1);
      return schema.maximum !== undefined ? Math.min(value, schema.maximum) : value;
    }
    case "boolean":
      return true;
    case "null":
      return null;
    case "string":
      return stringSample(schema, name);
    default:
      return {};
  }
}

function stringSample(schema: JsonSchema, name: string): string {
  if (schema.format && FORMAT_SAMPLES[schema.format] !== undefined) return FORMAT_SAMPLES[schema.format]!;
  let value = NAMED_SAMPLES[name] ?? (name ? name.replace(/[^A-Za-z0-9]/g, "") || "text" : "text");
  if (schema.pattern && !new RegExp(schema.pattern, "u").test(value)) value = "a";
  if (schema.minLength !== undefined && value.length < schema.minLength) value = value.padEnd(schema.minLength, "x");
  if (schema.maxLength !== undefined) value = value.slice(0, schema.maxLength);
  return value;
}
