import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog, eq, organizationSeals, signatureRequests } from "@clinsign/db";
import { makeCertificate, makeP12, daysFromNow, type TestCertificate } from "../../testing/certificates";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { signAndSeal, startFileServer, type FileServer } from "../../testing/signature-fixtures";

let api: TestApi;
let files: FileServer;
let orgA: TestOrg;
let orgB: TestOrg;
let adminA: ReturnType<TestApi["trpc"]>;
let adminB: ReturnType<TestApi["trpc"]>;
const work = mkdtempSync(join(tmpdir(), "clinsign-org-seal-"));

beforeAll(async () => {
  files = await startFileServer();
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: files.hostPort });
  orgA = await api.createOrg("Klinikum Nord");
  orgB = await api.createOrg("Klinikum Süd");
  adminA = api.trpc({ cookie: await logInCookie(api, orgA.ownerEmail, orgA.ownerPassword) });
  adminB = api.trpc({ cookie: await logInCookie(api, orgB.ownerEmail, orgB.ownerPassword) });
});
afterAll(async () => {
  await api?.close();
  await files?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The signer names pdfsig (poppler) reads from a PDF. */
function pdfsigSigners(pdf: Buffer): string {
  const path = join(work, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(path, pdf);
  try {
    return execFileSync("pdfsig", [path], { encoding: "utf8" });
  } catch (error) {
    // pdfsig exits non-zero for an untrusted issuer; its report is still on stdout.
    return String((error as { stdout?: string }).stdout ?? "");
  }
}

const refusal = (p12Base64: string, password: string) => adminA.organization.uploadSeal.mutate({ p12Base64, password });

describe("organization seal upload", () => {
  it.each<[string, () => { p12: string; password?: string }, string, string]>([
    [
      "an expired certificate",
      () => ({
        p12: makeP12("pw", [
          makeCertificate({ commonName: "Old", notBefore: daysFromNow(-400), notAfter: daysFromNow(-1) }),
        ]),
      }),
      "expired",
      "file",
    ],
    [
      "a not-yet-valid certificate",
      () => ({
        p12: makeP12("pw", [
          makeCertificate({ commonName: "Future", notBefore: daysFromNow(10), notAfter: daysFromNow(400) }),
        ]),
      }),
      "not_yet_valid",
      "file",
    ],
    [
      "a CA certificate",
      () => ({ p12: makeP12("pw", [makeCertificate({ commonName: "Root", ca: true })]) }),
      "ca_certificate",
      "file",
    ],
    [
      "a key usage without signatures",
      () => ({ p12: makeP12("pw", [makeCertificate({ commonName: "Enc", keyUsage: { keyEncipherment: true } })]) }),
      "key_usage",
      "file",
    ],
    [
      "an extended key usage for TLS servers only",
      () => ({ p12: makeP12("pw", [makeCertificate({ commonName: "TLS", extKeyUsage: { serverAuth: true } })]) }),
      "extended_key_usage",
      "file",
    ],
    [
      "a key that does not match the certificate",
      () => ({
        p12: makeP12("pw", [makeCertificate({ commonName: "Mismatch" })], makeCertificate({ commonName: "Other" }).key),
      }),
      "key_mismatch",
      "file",
    ],
    [
      "a wrong password",
      () => ({ p12: makeP12("right", [makeCertificate({ commonName: "Pw" })]), password: "wrong" }),
      "wrong_password",
      "password",
    ],
    [
      "a file that is not PKCS#12",
      () => ({ p12: Buffer.from("%PDF-1.7 not a key store").toString("base64") }),
      "not_pkcs12",
      "file",
    ],
  ])("refuses %s with a reason naming the field", async (_name, make, reason, field) => {
    const { p12, password = "pw" } = make();
    await expect(refusal(p12, password)).rejects.toMatchObject({
      data: { httpStatus: 400, details: { reason, field }, fieldErrors: [{ key: field }] },
    });
    expect((await adminA.organization.seal.query()).own).toBeNull();
  });

  it("is for owners and admins only, and not for API tokens", async () => {
    const p12 = makeP12("pw", [makeCertificate({ commonName: "Token" })]);
    await expect(
      api.trpc({ bearer: orgA.token }).organization.uploadSeal.mutate({ p12Base64: p12, password: "pw" }),
    ).rejects.toMatchObject({ data: { httpStatus: 401 } });
  });
});

describe("organization seal", () => {
  let ca: TestCertificate;
  let leaf: TestCertificate;

  it("shows subject, issuer, validity and chain, warns within 60 days, and keeps the key encrypted", async () => {
    ca = makeCertificate({ commonName: "Nord Test CA", ca: true });
    leaf = makeCertificate({
      commonName: "Klinikum Nord Siegel",
      organization: "Klinikum Nord",
      issuer: ca,
      notAfter: daysFromNow(30),
      extKeyUsage: { emailProtection: true },
    });
    const password = "p12-password-never-stored";
    const seal = await adminA.organization.uploadSeal.mutate({ p12Base64: makeP12(password, [leaf, ca]), password });
    expect(seal.own).toMatchObject({
      certificate: { subject: "CN=Klinikum Nord Siegel, O=Klinikum Nord", issuer: "CN=Nord Test CA, O=Nord Test CA" },
      expiresSoon: true,
      expired: false,
    });
    expect(seal.own!.daysLeft).toBeGreaterThanOrEqual(29);
    expect(seal.own!.daysLeft).toBeLessThanOrEqual(30);
    expect(seal.own!.chain.map((c) => c.subject)).toEqual([
      "CN=Klinikum Nord Siegel, O=Klinikum Nord",
      "CN=Nord Test CA, O=Nord Test CA",
    ]);
    expect(seal.default.development).toBe(true);

    const [row] = await api.services.db
      .select()
      .from(organizationSeals)
      .where(eq(organizationSeals.organizationId, orgA.orgId));
    const stored = JSON.stringify(row);
    // Neither the key (PEM or its base64 body) nor the password is in the row in clear.
    const keyBody = leaf.keyPem.split("\n")[5]!;
    expect(stored).not.toContain("PRIVATE KEY");
    expect(stored).not.toContain(keyBody);
    expect(stored).not.toContain(password);
    expect(JSON.parse(api.services.secrets.open(row!.identityEnc)).key).toContain("PRIVATE KEY");

    const actions = (await api.services.db.select().from(auditLog).where(eq(auditLog.organizationId, orgA.orgId))).map(
      (r) => r.action,
    );
    expect(actions).toContain("seal.uploaded");
  });

  it("does not warn with more than 60 days left", async () => {
    const cert = makeCertificate({ commonName: "Klinikum Süd Siegel", notAfter: daysFromNow(200) });
    const seal = await adminB.organization.uploadSeal.mutate({ p12Base64: makeP12("pw", [cert]), password: "pw" });
    expect(seal.own).toMatchObject({
      expiresSoon: false,
      certificate: { subject: "CN=Klinikum Süd Siegel, O=Klinikum Süd Siegel" },
    });
  });

  it("seals each organization's documents with its own identity, isolated from the other", async () => {
    const a = await signAndSeal(api, files, orgA, "P-org-a");
    const b = await signAndSeal(api, files, orgB, "P-org-b");
    expect(pdfsigSigners(a.pdf)).toContain("Klinikum Nord Siegel");
    expect(pdfsigSigners(a.pdf)).not.toContain("Klinikum Süd");
    expect(pdfsigSigners(b.pdf)).toContain("Klinikum S");
    expect(pdfsigSigners(b.pdf)).not.toContain("Nord");
    const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, a.id));
    expect(row!.sealedContentSha256).toMatch(/^[0-9a-f]{64}$/);
    // Each admin sees only their own seal.
    expect((await adminA.organization.seal.query()).own!.certificate.subject).toContain("Nord");
    expect((await adminB.organization.seal.query()).own!.certificate.subject).toContain("Süd");
  });

  it("goes back to the default certificate when removed", async () => {
    const removed = await adminA.organization.removeSeal.mutate();
    expect(removed.own).toBeNull();
    const sealed = await signAndSeal(api, files, orgA, "P-org-a2");
    const report = pdfsigSigners(sealed.pdf);
    expect(report).toContain("ClinSign development seal");
    expect(report).not.toContain("Klinikum Nord Siegel");
    const actions = (await api.services.db.select().from(auditLog).where(eq(auditLog.organizationId, orgA.orgId))).map(
      (r) => r.action,
    );
    expect(actions).toContain("seal.removed");
    // Organization B keeps its own.
    expect((await adminB.organization.seal.query()).own).not.toBeNull();
  });
});
