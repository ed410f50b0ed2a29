import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, auditLog, eq } from "@clinsign/db";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import {
  bearer,
  makeSignaturePng,
  pngDataUrl,
  registerDocument,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { recordAudit } from "./audit";
import { verifyOrganizationChain } from "./audit-log";

// Issue 31: a signature by link is the signer's, by role and name, not always "the patient's".

const DAY = 86_400_000;
const PATIENT = { page: 1, x: 40, y: 600, width: 200, height: 60 };
const PHYSICIAN = { page: 1, x: 40, y: 700, width: 200, height: 60, role: "physician" };

let api: TestApi;
let files: FileServer;
let org: TestOrg;
let other: TestOrg;
let owner: string;
let consentForm: string;

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort });
  org = await api.createOrg("Klinik Nord");
  other = await api.createOrg("Klinik Süd");
  owner = await logInCookie(api, org.ownerEmail, org.ownerPassword);
  consentForm = await registerDocument(api, files, org, { name: "Aufklärung", fields: [PATIENT, PHYSICIAN] });
});
afterAll(async () => {
  await api?.close();
  await files?.close();
});

const tokenOf = (link: string) => link.slice(link.lastIndexOf("/") + 1);
const drawn = () => ({ kind: "drawn" as const, dataUrl: pngDataUrl(makeSignaturePng()) });

async function signByLink(token: string) {
  const view = await api.trpc({}).signing.open.mutate({ token });
  return api.trpc({}).signing.sign.mutate({ sessionToken: view.sessionToken!, consent: true, signature: drawn() });
}

async function request(body: Record<string, unknown>) {
  const res = await api.request("POST", "/signature-requests", {
    headers: bearer(org),
    body: {
      patient_id: "P-31",
      institution_id: "station-3",
      order_by: "dr.weber",
      document_id: consentForm,
      expiration_date: new Date(Date.now() + 10 * DAY).toISOString(),
      ...body,
    },
  });
  if (res.status !== 201) throw new Error(`A1 failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as {
    signature_id: string;
    signing_link: string;
    signers?: { role: string; signer_id: string; signing_link: string | null }[];
  };
}

const signedEntries = async (signatureId: string) =>
  (await api.trpc({ cookie: owner }).audit.entries.query({ action: "signature.signed", limit: 100 })).items.filter(
    (e) => e.metadata.signatureId === signatureId,
  );

describe("who signed, in the staff audit list", () => {
  it("names the physician who signed by link by role and name, and the patient as the patient", async () => {
    const created = await request({ signers: [{ role: "physician", name: "Dr. Weber" }] });
    const physicianLink = created.signers!.find((s) => s.role === "physician")!.signing_link!;
    expect(await signByLink(tokenOf(created.signing_link))).toEqual({ state: "signed" });
    expect(await signByLink(tokenOf(physicianLink))).toEqual({ state: "completed" });

    // Newest first: the physician's signature, then the patient's.
    const entries = await signedEntries(created.signature_id);
    expect(entries.map((e) => [e.actorType, e.actorRole, e.actorName])).toEqual([
      ["signer", "physician", "Dr. Weber"],
      ["signer", "patient", null],
    ]);
    // The name is the entry's own (written with it), not only looked up.
    expect(entries[0]!.metadata).toMatchObject({ role: "physician", signerName: "Dr. Weber" });
    // The chain verifies with the new detail in the entries.
    expect(await verifyOrganizationChain(org.ctx)).toMatchObject({ ok: true });
  });

  it("a one-patient request's signature is the patient's; staff and tokens carry no signer role", async () => {
    const plain = await registerDocument(api, files, org, { name: "Einfach" });
    const created = await request({ document_id: plain });
    expect(await signByLink(tokenOf(created.signing_link))).toEqual({ state: "completed" });
    const [entry] = await signedEntries(created.signature_id);
    expect(entry).toMatchObject({ actorType: "signer", actorRole: "patient", actorName: null });
    const page = await api.trpc({ cookie: owner }).audit.entries.query({ action: "signature.created", limit: 5 });
    expect(page.items[0]).toMatchObject({ actorType: "api_key", actorRole: null });
  });

  it("an entry written before issue 31 (role and signer, no name) is named from the signer's row; another organization's signer never", async () => {
    const created = await request({ signers: [{ role: "physician", name: "Dr. Weber" }] });
    const signerId = created.signers!.find((s) => s.role === "physician")!.signer_id;
    const signerCtx = { ...org.ctx, actor: { type: "signer" as const, id: created.signature_id } };
    await recordAudit(signerCtx, {
      action: "signature.declined",
      metadata: { signatureId: created.signature_id, role: "physician", signerId, reason: null },
    });
    // The same signer id in another organization's entry names no one there.
    await recordAudit(
      { ...other.ctx, actor: { type: "signer", id: created.signature_id } },
      { action: "signature.declined", metadata: { signatureId: created.signature_id, role: "witness", signerId } },
    );
    const [older] = (await api.trpc({ cookie: owner }).audit.entries.query({ action: "signature.declined", limit: 5 }))
      .items;
    expect(older).toMatchObject({ actorType: "signer", actorRole: "physician", actorName: "Dr. Weber" });
    const foreignOwner = await logInCookie(api, other.ownerEmail, other.ownerPassword);
    const [foreign] = (
      await api.trpc({ cookie: foreignOwner }).audit.entries.query({ action: "signature.declined", limit: 5 })
    ).items;
    expect(foreign).toMatchObject({ actorType: "signer", actorRole: "witness", actorName: null });
    const stored = await api.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.orgId), eq(auditLog.action, "signature.declined")));
    // Nothing is rewritten: the stored entry is as it was written.
    expect(stored[0]!.metadata).toEqual({
      signatureId: created.signature_id,
      role: "physician",
      signerId,
      reason: null,
    });
  });
});
