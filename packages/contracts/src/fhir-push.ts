import { z } from "zod";
import { listInput, listPage } from "./lists";

// FHIR push (issue 34): an organization's FHIR R4 server, to which every completed signature
// request and every submission goes as one transaction Bundle (docs/fhir.md).

export const fhirPushAuth = z.enum(["none", "bearer", "client_credentials", "smart_backend"]);
export type FhirPushAuthKind = z.infer<typeof fhirPushAuth>;

const httpUrl = z
  .string()
  .trim()
  .max(2048, { message: "must be at most 2048 characters" })
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), { message: "must be an http(s) URL" });

/** An identifier system as FHIR names one: a URI (`urn:oid:…`, `https://…`). */
const identifierSystem = z
  .string()
  .trim()
  .min(1, { message: "is required" })
  .max(512, { message: "must be at most 512 characters" })
  .refine((value) => URL.canParse(value), { message: "must be a URI, e.g. urn:oid:1.2.276.0.76.4.8 or https://…" });

/**
 * Saving the FHIR server. `secret`: the bearer token (`bearer`), the client secret
 * (`client_credentials`) or the PKCS#8 private key in PEM (`smart_backend`); omitted, the stored
 * one is kept (it is never shown again).
 */
export const saveFhirPushTargetInput = z
  .strictObject({
    enabled: z.boolean(),
    baseUrl: httpUrl,
    auth: fhirPushAuth,
    secret: z.string().min(1, { message: "is required" }).max(16_384, { message: "is too long" }).optional(),
    clientId: z.string().trim().min(1, { message: "is required" }).max(256).optional(),
    tokenUrl: httpUrl.optional(),
    scope: z.string().trim().max(1024).optional(),
    patientIdSystem: identifierSystem.optional(),
    rnummerSystem: identifierSystem.optional(),
  })
  .superRefine((input, context) => {
    const needs = (key: "clientId" | "tokenUrl") => {
      if (!input[key]) context.addIssue({ code: "custom", path: [key], message: `is required for ${input.auth}` });
    };
    if (input.auth === "client_credentials" || input.auth === "smart_backend") {
      needs("clientId");
      needs("tokenUrl");
    }
  });
export type SaveFhirPushTargetInput = z.infer<typeof saveFhirPushTargetInput>;

/** The FHIR server as staff see it: never the secret, only whether one is stored. */
export const fhirPushTarget = z.object({
  enabled: z.boolean(),
  baseUrl: z.string(),
  auth: fhirPushAuth,
  hasSecret: z.boolean(),
  clientId: z.string().nullable(),
  tokenUrl: z.string().nullable(),
  scope: z.string().nullable(),
  patientIdSystem: z.string().nullable(),
  rnummerSystem: z.string().nullable(),
  updatedAt: z.string(),
});
export type FhirPushTarget = z.infer<typeof fhirPushTarget>;

export const fhirDeliverySource = z.enum(["signature_request", "submission"]);
export const fhirDeliveryStatus = z.enum(["pending", "delivered", "failed"]);

export const listFhirDeliveriesInput = listInput({ status: fhirDeliveryStatus.optional() });

export const fhirDelivery = z.object({
  id: z.uuid(),
  sourceKind: fhirDeliverySource,
  sourceId: z.uuid(),
  status: fhirDeliveryStatus,
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  lastAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});
export type FhirDelivery = z.infer<typeof fhirDelivery>;

export const fhirDeliveryPage = listPage(fhirDelivery);
export const fhirDeliveryRef = z.object({ id: z.uuid() });
