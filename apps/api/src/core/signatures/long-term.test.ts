/**
 * Long-term seals against a real test PKI (testing/pki.ts: openssl CA, `openssl ts -reply` TSA,
 * `openssl ocsp` responder, a CRL): B-T time stamps, B-LTA validation data and document time
 * stamps, checked with pdfsig, `openssl ts -verify` and qpdf; a misbehaving TSA or OCSP responder
 * leaves the request unsealed and visibly delayed; re-time-stamping keeps every earlier signature.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, jobs, signatureRequests, sql } from "@clinsign/db";
import { jobHandlers } from "../../jobs/handlers";
import { JobRunner } from "../../jobs/runner";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { startTestPki, type TestPki, type TsaMode } from "../../testing/pki";
import {
  bearer,
  registerDocument,
  requestSignature,
  startFileServer,
  type FileServer,
} from "../../testing/signature-fixtures";
import { OID } from "../pdf-seal/cms";
import { childrenOf, oidOf, readDer } from "../pdf-seal/der";
import { signatureContents, vriKey } from "../pdf-seal/ltv";
import { RETIMESTAMP_JOB } from "./retimestamp";
import { SEAL_JOB } from "./seal";

let pki: TestPki;
let files: FileServer;
let api: TestApi;
let org: TestOrg;
const work = mkdtempSync(join(tmpdir(), "clinsign-lt-"));
/** Each test seals one or more documents against openssl-backed TSA/OCSP: slow on a shared machine. */
const SLOW = 180_000;

beforeAll(async () => {
  pki = await startTestPki();
  files = await startFileServer();
  api = await startTestApi(
    pki.env({ OUTBOUND_ALLOW_HOSTS: `${pki.hostPort},${files.hostPort}`, RETIMESTAMP_WINDOW_DAYS: "30" }),
  );
  org = await api.createOrg("Klinik Zeit");
}, SLOW);
afterAll(async () => {
  await api?.close();
  await files?.close();
  await pki?.close();
  rmSync(work, { recursive: true, force: true });
});

async function signTyped(patientId: string) {
  const documentId = await registerDocument(api, files, org);
  const request = await requestSignature(api, org, documentId, patientId);
  const signing = api.trpc({}).signing;
  const { sessionToken } = await signing.open.mutate({ token: request.token });
  const result = await signing.sign.mutate({
    sessionToken: sessionToken!,
    consent: true,
    signature: { kind: "typed", name: "Erika Mustermann" },
  });
  return { request, result };
}

async function download(id: string, file: "signed.pdf" | "metadata.json") {
  const response = await fetch(`${api.baseUrl}/signature-requests/${id}/${file}`, { headers: bearer(org) });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** The signature time stamp token inside a CMS signature (unsigned attribute of its signer). */
function signatureTimestampToken(cms: Buffer): { token: Buffer; signatureValue: Buffer } {
  const signedData = childrenOf(childrenOf(readDer(cms).children[1])[0]);
  const signerInfo = childrenOf(childrenOf(signedData[signedData.length - 1])[0]);
  const unsigned = childrenOf(signerInfo[6]);
  const attribute = unsigned.find((a) => oidOf(a.children[0]) === OID.timeStampToken)!;
  return {
    token: childrenOf(attribute.children[1])[0]!.raw,
    signatureValue: signerInfo[5]!.content,
  };
}

/** `/Contents` is padded with zeros after the DER. */
const trimmed = (contents: Buffer) => readDer(contents).raw;

function pdfsig(pdf: Buffer, name: string) {
  const file = join(work, `${name}.pdf`);
  writeFileSync(file, pdf);
  return {
    sig: spawnSync("pdfsig", [file], { encoding: "utf8" }).stdout,
    qpdf: spawnSync("qpdf", ["--check", file], { encoding: "utf8" }),
  };
}

/** The signatures pdfsig lists, each as its block of lines. */
const signatureBlocks = (out: string) => out.split(/^Signature #\d+:/m).slice(1);

async function dssOf(pdf: Buffer) {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const dss = doc.catalog.lookup(PDFName.of("DSS"), PDFDict);
  const streams = (key: string) => {
    const array = dss.lookupMaybe(PDFName.of(key), PDFArray);
    return array
      ? array.asArray().map((ref) => Buffer.from((doc.context.lookup(ref as PDFRef) as PDFRawStream).getContents()))
      : [];
  };
  const vri = dss.lookup(PDFName.of("VRI"), PDFDict);
  return {
    certs: streams("Certs"),
    ocsps: streams("OCSPs"),
    crls: streams("CRLs"),
    vriKeys: vri.keys().map((k) => k.decodeText()),
  };
}

const pem = (path: string) => Buffer.from(spawnSync("openssl", ["x509", "-in", path, "-outform", "DER"]).stdout);

describe("a seal with a time-stamping authority and a CA-issued certificate", () => {
  let sealed: Buffer;
  let signatureRequestId: string;

  it(
    "is PAdES B-LTA: time-stamped signature, DSS with chain and revocation data, document time stamp",
    async () => {
      const { request, result } = await signTyped("P-lta");
      expect(result).toEqual({ state: "completed" });
      signatureRequestId = request.id;
      sealed = await download(request.id, "signed.pdf");

      const { sig, qpdf } = pdfsig(sealed, "lta");
      const blocks = signatureBlocks(sig);
      expect(blocks).toHaveLength(2);
      expect(blocks[0]).toContain("ETSI.CAdES.detached");
      expect(blocks[0]).toContain("Signature is Valid.");
      // Poppler lists the document time stamp (its type as "unknown": it does not verify RFC 3161
      // tokens; `openssl ts -verify` below does) and that it covers the whole file.
      expect(blocks[1]).toContain("Document time stamp");
      expect(blocks[1]).toContain("Total document signed");
      expect(sig).not.toMatch(/Signature is Invalid|modified/i);
      expect(qpdf.status, qpdf.stdout + qpdf.stderr).toBe(0);
      expect(qpdf.stdout).toContain("No syntax or stream encoding errors");

      // The signature time stamp covers the signature value and verifies against the test CA.
      const contents = signatureContents(sealed);
      expect(contents).toHaveLength(2);
      const { token, signatureValue } = signatureTimestampToken(trimmed(contents[0]!));
      expect(pki.verifyTimestamp(token, signatureValue)).toContain("Verification: OK");
      // The document time stamp covers the document's byte ranges.
      const docToken = trimmed(contents[1]!);
      const range = /\/ByteRange \[0 (\d+) (\d+) (\d+)\s*\]/
        .exec(sealed.toString("latin1").slice(sealed.lastIndexOf("/DocTimeStamp")))!
        .slice(1)
        .map(Number);
      expect(range[1]! + range[2]!).toBe(sealed.length);
      const covered = Buffer.concat([sealed.subarray(0, range[0]), sealed.subarray(range[1])]);
      expect(pki.verifyTimestamp(docToken, covered)).toContain("Verification: OK");

      // DSS: the sealing certificate, the TSA's, the CA; an OCSP response (seal) and the CRL (TSA).
      const dss = await dssOf(sealed);
      const certs = dss.certs.map((c) => c.toString("hex"));
      for (const file of [pki.caFile, pki.tsaCertFile, join(pki.dir, "seal.crt")])
        expect(certs).toContain(pem(file).toString("hex"));
      expect(dss.ocsps).toHaveLength(1);
      expect(dss.crls.map((c) => c.toString("hex"))).toEqual([readCrl()]);
      expect(dss.vriKeys).toEqual([vriKey(contents[0]!)]);

      const metadata = JSON.parse((await download(request.id, "metadata.json")).toString("utf8"));
      expect(metadata.seal).toMatchObject({
        format: "PAdES",
        sub_filter: "ETSI.CAdES.detached",
        level: "B-LTA",
        signature_timestamp: {
          gen_time: expect.any(String),
          tsa: expect.stringContaining("ClinSign Test TSA"),
          tsa_url: pki.tsaUrl,
        },
        document_timestamps: [{ gen_time: expect.any(String), tsa: expect.stringContaining("ClinSign Test TSA") }],
      });
      expect(metadata.sha256.signed_pdf).toBe(createHash("sha256").update(sealed).digest("hex"));
      const staff = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
      expect(await staff.signatures.detail.query({ id: request.id })).toMatchObject({
        status: "completed",
        sealLevel: "B-LTA",
        timestampedAt: metadata.seal.signature_timestamp.gen_time,
        sealDelayed: false,
      });
      expect(await staff.auth.me.query()).toMatchObject({ sealLevel: "B-LTA" });
    },
    SLOW,
  );

  it(
    "is recognised by /verify as this service's B-LTA seal, sealed at the time stamp's time, with its request",
    async () => {
      const response = await fetch(`${api.baseUrl}/verify`, {
        method: "POST",
        headers: { "content-type": "application/pdf" },
        body: sealed,
      });
      expect(response.status).toBe(200);
      const metadata = JSON.parse((await download(signatureRequestId, "metadata.json")).toString("utf8"));
      // The DSS and the document time stamp come after the seal: the request is still found by the
      // seal's own revision, and the time is the TSA's, not the signer's claim.
      expect(await response.json()).toMatchObject({
        status: "sealed",
        sealedByThisService: true,
        intact: true,
        modifiedAfterSealing: false,
        updatedAfterSealing: false,
        padesLevel: "B-LTA",
        sealedAt: { at: metadata.seal.signature_timestamp.gen_time, source: "signature_timestamp" },
        request: { signatureId: signatureRequestId },
      });
    },
    SLOW,
  );

  it(
    "re-time-stamps before the newest time stamp's certificate expires, keeping every earlier signature",
    async () => {
      const [row] = await api.services.db
        .select()
        .from(signatureRequests)
        .where(eq(signatureRequests.id, signatureRequestId));
      expect(row!.timestampExpiresAt).toBeInstanceOf(Date);
      // The renewal job waits for the window (30 days before the TSA certificate's end).
      const [job] = await api.services.db
        .select()
        .from(jobs)
        .where(sql`${jobs.kind} = ${RETIMESTAMP_JOB} and ${jobs.payload}->>'signatureId' = ${signatureRequestId}`);
      expect(job!.runAt.getTime()).toBe(row!.timestampExpiresAt!.getTime() - 30 * 24 * 3600_000);
      // Time passes: the job is due now.
      await api.services.db.execute(sql`update ${jobs} set run_at = now() where id = ${job!.id}`);
      await api.services.db.execute(
        sql`update ${signatureRequests} set timestamp_expires_at = now() + interval '1 day' where id = ${signatureRequestId}`,
      );
      const runner = new JobRunner(api.services, { [RETIMESTAMP_JOB]: jobHandlers[RETIMESTAMP_JOB]! });
      await runner.runDue();

      const renewed = await download(signatureRequestId, "signed.pdf");
      // An incremental update: the earlier file is a prefix of the new one.
      expect(renewed.length).toBeGreaterThan(sealed.length);
      expect(renewed.subarray(0, sealed.length).equals(sealed)).toBe(true);
      const { sig, qpdf } = pdfsig(renewed, "renewed");
      const blocks = signatureBlocks(sig);
      expect(blocks).toHaveLength(3);
      expect(blocks[0]).toContain("Signature is Valid.");
      expect(blocks[2]).toContain("Document time stamp");
      expect(blocks[2]).toContain("Total document signed");
      expect(blocks[1]).not.toContain("Total document signed");
      expect(sig).not.toMatch(/Signature is Invalid|modified/i);
      expect(qpdf.status, qpdf.stdout + qpdf.stderr).toBe(0);
      const contents = signatureContents(renewed);
      expect(contents).toHaveLength(3);
      const range = /\/ByteRange \[0 (\d+) (\d+) (\d+)\s*\]/
        .exec(renewed.toString("latin1").slice(renewed.lastIndexOf("/DocTimeStamp")))!
        .slice(1)
        .map(Number);
      expect(range[1]! + range[2]!).toBe(renewed.length);
      expect(
        pki.verifyTimestamp(
          trimmed(contents[2]!),
          Buffer.concat([renewed.subarray(0, range[0]), renewed.subarray(range[1])]),
        ),
      ).toContain("Verification: OK");
      // New DSS entries for the previous time stamp, under its VRI key.
      expect((await dssOf(renewed)).vriKeys.sort()).toEqual([vriKey(contents[0]!), vriKey(contents[1]!)].sort());

      const metadata = JSON.parse((await download(signatureRequestId, "metadata.json")).toString("utf8"));
      expect(metadata.seal.document_timestamps).toHaveLength(2);
      expect(metadata.sha256.signed_pdf).toBe(createHash("sha256").update(renewed).digest("hex"));
      // The next renewal is queued, once.
      const pending = await api.services.db
        .select()
        .from(jobs)
        .where(
          sql`${jobs.kind} = ${RETIMESTAMP_JOB} and ${jobs.payload}->>'signatureId' = ${signatureRequestId} and ${jobs.status} = 'pending'`,
        );
      expect(pending).toHaveLength(1);
      const staff = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
      const detail = await staff.signatures.detail.query({ id: signatureRequestId });
      expect(detail.timeline.map((e) => e.kind)).toContain("retimestamped");
    },
    SLOW,
  );
});

/** The seal job of a request retried at once (its backoff skipped), as the runner would later. */
async function retrySealNow(signatureId: string) {
  await api.services.db.execute(
    sql`update ${jobs} set run_at = now() where ${jobs.kind} = ${SEAL_JOB} and ${jobs.payload}->>'signatureId' = ${signatureId}`,
  );
  await new JobRunner(api.services, { [SEAL_JOB]: jobHandlers[SEAL_JOB]! }).runDue();
}

const readCrl = () => readFileSync(join(pki.dir, "ca.crl")).toString("hex");

describe("a TSA or OCSP responder that fails never produces a seal without time", () => {
  const modes: TsaMode[] = ["down", "slow", "garbage", "wrong-imprint", "wrong-nonce"];
  for (const mode of modes) {
    it(
      `TSA ${mode}: the request stays sealing, shown as delayed with the reason, out of A3; sealed once the TSA answers`,
      async () => {
        pki.tsaMode = mode;
        let id: string;
        try {
          const { request, result } = await signTyped(`P-${mode}`);
          id = request.id;
          expect(result).toEqual({ state: "sealing" });
        } finally {
          pki.tsaMode = "ok";
        }
        const [row] = await api.services.db.select().from(signatureRequests).where(eq(signatureRequests.id, id));
        expect(row).toMatchObject({
          status: "sealing",
          signedPdfKey: null,
          sealError: expect.stringContaining("time-stamping authority"),
        });
        const staff = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
        expect(await staff.signatures.detail.query({ id })).toMatchObject({
          status: "sealing",
          sealDelayed: true,
          sealLevel: null,
          sealError: expect.stringContaining("time-stamping authority"),
        });
        const a3 = () =>
          api.request("GET", `/signature-requests/completed?patient_id=P-${mode}`, { headers: bearer(org) });
        expect((await a3()).body).toEqual([]);
        expect(
          (await fetch(`${api.baseUrl}/signature-requests/${id}/signed.pdf`, { headers: bearer(org) })).status,
        ).toBe(404);

        // The seal job retries and succeeds once the TSA answers properly.
        await retrySealNow(id);
        expect(await staff.signatures.detail.query({ id })).toMatchObject({
          status: "completed",
          sealDelayed: false,
          sealLevel: "B-LTA",
        });
        expect((await a3()).body.map((p: { signature_id: string }) => p.signature_id)).toEqual([id]);
      },
      SLOW,
    );
  }

  it(
    "OCSP responder down: fail closed (no B-T-only seal of a CA certificate), sealed once it answers",
    async () => {
      pki.ocspDown = true;
      let id: string;
      try {
        const { request, result } = await signTyped("P-ocsp-down");
        id = request.id;
        expect(result).toEqual({ state: "sealing" });
      } finally {
        pki.ocspDown = false;
      }
      const staff = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
      expect(await staff.signatures.detail.query({ id })).toMatchObject({
        status: "sealing",
        sealDelayed: true,
        sealError: expect.stringContaining("/ocsp"),
      });
      await retrySealNow(id);
      expect(await staff.signatures.detail.query({ id })).toMatchObject({ status: "completed", sealLevel: "B-LTA" });
    },
    SLOW,
  );

  it(
    "TSA certificate revoked on the CA's next CRL: the next seal fails closed though the CRL before was checked and kept; sealed once it is off again",
    async () => {
      // The CRL as it is now is checked (and kept) by this seal …
      expect((await signTyped("P-crl-before")).result).toEqual({ state: "completed" });
      // … then the CA revokes the TSA's certificate and issues the next CRL.
      await pki.setTsaRevoked(true);
      let id: string;
      try {
        const { request, result } = await signTyped("P-crl-revoked");
        id = request.id;
        expect(result).toEqual({ state: "sealing" });
      } finally {
        await pki.setTsaRevoked(false);
      }
      const staff = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
      expect(await staff.signatures.detail.query({ id })).toMatchObject({
        status: "sealing",
        sealDelayed: true,
        sealError: expect.stringMatching(/ClinSign Test TSA.*is revoked.*\/ca\.crl/),
      });
      await retrySealNow(id);
      expect(await staff.signatures.detail.query({ id })).toMatchObject({ status: "completed", sealLevel: "B-LTA" });
    },
    SLOW,
  );
});

describe("a TSA with the self-signed development certificate", () => {
  let dev: TestApi;
  beforeAll(async () => {
    dev = await startTestApi({ TSA_URL: pki.tsaUrl, OUTBOUND_ALLOW_HOSTS: `${pki.hostPort},${files.hostPort}` });
  }, SLOW);
  afterAll(async () => {
    await dev?.close();
  });

  it(
    "reaches B-T (no revocation data exists for a self-signed certificate) and says so",
    async () => {
      const devOrg = await dev.createOrg("Klinik Dev");
      const documentId = await registerDocument(dev, files, devOrg);
      const request = await requestSignature(dev, devOrg, documentId, "P-dev");
      const signing = dev.trpc({}).signing;
      const { sessionToken } = await signing.open.mutate({ token: request.token });
      expect(
        await signing.sign.mutate({
          sessionToken: sessionToken!,
          consent: true,
          signature: { kind: "typed", name: "Max" },
        }),
      ).toEqual({ state: "completed" });
      const response = await fetch(`${dev.baseUrl}/signature-requests/${request.id}/metadata.json`, {
        headers: bearer(devOrg),
      });
      const metadata = (await response.json()) as {
        seal: { level: string; document_timestamps: unknown[]; signature_timestamp: unknown };
      };
      expect(metadata.seal).toMatchObject({
        level: "B-T",
        document_timestamps: [],
        signature_timestamp: { tsa_url: pki.tsaUrl },
      });
      const pdf = Buffer.from(
        await (
          await fetch(`${dev.baseUrl}/signature-requests/${request.id}/signed.pdf`, { headers: bearer(devOrg) })
        ).arrayBuffer(),
      );
      const { sig } = pdfsig(pdf, "dev-bt");
      expect(signatureBlocks(sig)).toHaveLength(1);
      expect(sig).toContain("Signature is Valid.");
      expect(sig).toContain("Total document signed");
    },
    SLOW,
  );
});
