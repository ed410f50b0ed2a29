/**
 * A small test PKI on loopback, made of real parts: a CA (openssl), a TSA certificate (extended key
 * usage timeStamping, critical; revocation by CRL), a sealing certificate (AIA OCSP pointing here)
 * in a PKCS#12 file, and one HTTP server that answers
 *   POST /tsa   by running `openssl ts -reply` on the request,
 *   POST /ocsp  by running `openssl ocsp` against the CA's index.txt,
 *   GET  /ca.crl, /ca.crt  the CA's CRL and certificate.
 * The TSA can be switched to misbehave (down, slow, error, garbage, wrong imprint, wrong nonce),
 * the OCSP responder to down.
 */
import { execFile, spawnSync } from "node:child_process";
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import forge from "node-forge";

const run = promisify(execFile);

export type TsaMode = "ok" | "down" | "slow" | "error" | "garbage" | "wrong-imprint" | "wrong-nonce";

export interface TestPki {
  dir: string;
  origin: string;
  hostPort: string;
  tsaUrl: string;
  caFile: string;
  tsaCertFile: string;
  /** The sealing certificate (issued by the CA, AIA OCSP here) as SIGNING_P12_FILE/PASSWORD. */
  sealP12: { file: string; password: string };
  tsaMode: TsaMode;
  ocspDown: boolean;
  /** While set, the OCSP responder's and the CRL server's answers wait for it to settle. */
  holdRevocation: Promise<unknown> | null;
  /** How long "slow" keeps the TSA's client waiting. */
  slowMs: number;
  requests: { path: string; at: number }[];
  /** The environment of an API sealing with this PKI (TSA, certificate, allow-listed host). */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Puts the TSA's certificate on the CA's CRL, or takes it off; either way a new CRL is issued. */
  setTsaRevoked(revoked: boolean): Promise<void>;
  /** `openssl ts -verify` of a time-stamp token over `data` against this CA: its output, "Verification: OK" when it holds. */
  verifyTimestamp(token: Buffer, data: Buffer): string;
  close(): Promise<void>;
}

async function openssl(args: string[], cwd: string, input?: Buffer): Promise<void> {
  if (input) {
    await new Promise<void>((resolve, reject) => {
      const child = execFile("openssl", args, { cwd }, (error) => (error ? reject(error) : resolve()));
      child.stdin!.end(input);
    });
    return;
  }
  await run("openssl", args, { cwd });
}

function rsaKey(path: string): string {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  writeFileSync(path, pem, { mode: 0o600 });
  return pem;
}

/** Flips a bit of the message imprint or the nonce of a TimeStampReq, keeping it well-formed. */
function tamperQuery(query: Buffer, what: "imprint" | "nonce"): Buffer {
  const root = forge.asn1.fromDer(query.toString("binary"));
  const fields = root.value as forge.asn1.Asn1[];
  const node =
    what === "imprint"
      ? ((fields[1]!.value as forge.asn1.Asn1[])[1] as forge.asn1.Asn1)
      : fields.find((f) => f.type === forge.asn1.Type.INTEGER && f !== fields[0])!;
  const bytes = node.value as string;
  node.value = bytes.slice(0, -1) + String.fromCharCode(bytes.charCodeAt(bytes.length - 1) ^ 1);
  return Buffer.from(forge.asn1.toDer(root).getBytes(), "binary");
}

export async function startTestPki(): Promise<TestPki> {
  const dir = mkdtempSync(join(tmpdir(), "clinsign-pki-"));
  const requests: TestPki["requests"] = [];
  let counter = 0;
  const scratch = () => join(dir, `x-${++counter}-${randomBytes(4).toString("hex")}`);

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      requests.push({ path, at: Date.now() });
      const body = Buffer.concat(chunks);
      void answer(path, body, req.socket)
        .then((reply) => {
          if (!reply) return;
          res
            .writeHead(reply.status, { "content-type": reply.type, "content-length": reply.body.length })
            .end(reply.body);
        })
        .catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  // ---- the CA and its certificates
  rsaKey(join(dir, "ca.key"));
  writeFileSync(
    join(dir, "ext.cnf"),
    `[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[tsa_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
extendedKeyUsage = critical, timeStamping
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
crlDistributionPoints = URI:${origin}/ca.crl
[seal_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
authorityInfoAccess = OCSP;URI:${origin}/ocsp, caIssuers;URI:${origin}/ca.crt
`,
  );
  await openssl(
    [
      "req",
      "-x509",
      "-new",
      "-key",
      "ca.key",
      "-subj",
      "/O=ClinSign test PKI/CN=ClinSign Test Root CA",
      "-days",
      "3650",
      "-sha256",
      "-config",
      "ext.cnf",
      "-extensions",
      "ca_ext",
      "-out",
      "ca.crt",
    ],
    dir,
  );
  const issue = async (name: string, subject: string, serial: string, ext: string) => {
    rsaKey(join(dir, `${name}.key`));
    await openssl(["req", "-new", "-key", `${name}.key`, "-subj", subject, "-out", `${name}.csr`], dir);
    await openssl(
      [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-set_serial",
        `0x${serial}`,
        "-days",
        "825",
        "-sha256",
        "-extfile",
        "ext.cnf",
        "-extensions",
        ext,
        "-out",
        `${name}.crt`,
      ],
      dir,
    );
  };
  await issue("tsa", "/O=ClinSign test PKI/CN=ClinSign Test TSA", "1001", "tsa_ext");
  await issue("seal", "/O=Klinik Test/CN=Klinik Test seal", "1002", "seal_ext");

  // index.txt for `openssl ocsp` and `openssl ca -gencrl`: both certificates valid (until setTsaRevoked).
  /** YYMMDDHHMMSSZ, as index.txt holds times. */
  const opensslTime = (date: Date) => date.toISOString().replace(/[-:T]/g, "").slice(2, 14) + "Z";
  const enddate = (file: string) => {
    const pem = readFileSync(join(dir, file), "utf8");
    return opensslTime(forge.pki.certificateFromPem(pem).validity.notAfter);
  };
  const writeIndex = (tsaRevokedAt: string | null) =>
    writeFileSync(
      join(dir, "index.txt"),
      `${tsaRevokedAt ? "R" : "V"}\t${enddate("tsa.crt")}\t${tsaRevokedAt ?? ""}\t1001\tunknown\t/CN=ClinSign Test TSA\nV\t${enddate("seal.crt")}\t\t1002\tunknown\t/CN=Klinik Test seal\n`,
    );
  writeIndex(null);
  writeFileSync(join(dir, "index.txt.attr"), "unique_subject = no\n");
  writeFileSync(join(dir, "crlnumber"), "01\n");
  writeFileSync(join(dir, "tsaserial"), "01\n");
  writeFileSync(
    join(dir, "openssl.cnf"),
    `[ca]
default_ca = ca_default
[ca_default]
dir = ${dir}
database = $dir/index.txt
crlnumber = $dir/crlnumber
certificate = $dir/ca.crt
private_key = $dir/ca.key
default_md = sha256
default_crl_days = 30
[tsa]
default_tsa = tsa_default
[tsa_default]
dir = ${dir}
serial = $dir/tsaserial
crypto_device = builtin
signer_cert = $dir/tsa.crt
certs = $dir/ca.crt
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`,
  );
  const issueCrl = async () => {
    await openssl(["ca", "-gencrl", "-config", "openssl.cnf", "-out", "ca.crl.pem"], dir);
    await openssl(["crl", "-in", "ca.crl.pem", "-outform", "DER", "-out", "ca.crl"], dir);
  };
  await issueCrl();

  // The sealing certificate as a PKCS#12 file the service reads (forge, like the dev certificate).
  const sealKey = forge.pki.privateKeyFromPem(readFileSync(join(dir, "seal.key"), "utf8"));
  const sealCert = forge.pki.certificateFromPem(readFileSync(join(dir, "seal.crt"), "utf8"));
  const caCert = forge.pki.certificateFromPem(readFileSync(join(dir, "ca.crt"), "utf8"));
  const password = randomBytes(12).toString("hex");
  const p12 = forge.pkcs12.toPkcs12Asn1(sealKey, [sealCert, caCert], password, { algorithm: "aes256" });
  writeFileSync(join(dir, "seal.p12"), Buffer.from(forge.asn1.toDer(p12).getBytes(), "binary"));

  const pki: TestPki = {
    dir,
    origin,
    hostPort: `127.0.0.1:${port}`,
    tsaUrl: `${origin}/tsa`,
    caFile: join(dir, "ca.crt"),
    tsaCertFile: join(dir, "tsa.crt"),
    sealP12: { file: join(dir, "seal.p12"), password },
    tsaMode: "ok",
    ocspDown: false,
    holdRevocation: null,
    slowMs: 2500,
    requests,
    env: (extra = {}) => ({
      TSA_URL: pki.tsaUrl,
      TSA_TIMEOUT_SECONDS: "1",
      SIGNING_P12_FILE: pki.sealP12.file,
      SIGNING_P12_PASSWORD: pki.sealP12.password,
      OUTBOUND_ALLOW_HOSTS: pki.hostPort,
      ...extra,
    }),
    async setTsaRevoked(revoked) {
      writeIndex(revoked ? opensslTime(new Date()) : null);
      await issueCrl();
    },
    verifyTimestamp(token, data) {
      const tokenFile = join(dir, `token-${randomBytes(6).toString("hex")}.tsr`);
      writeFileSync(tokenFile, token);
      const digest = createHash("sha256").update(data).digest("hex");
      const { stdout, stderr } = spawnSync(
        "openssl",
        [
          "ts",
          "-verify",
          "-token_in",
          "-in",
          tokenFile,
          "-digest",
          digest,
          "-CAfile",
          pki.caFile,
          "-untrusted",
          pki.tsaCertFile,
        ],
        { encoding: "utf8" },
      );
      rmSync(tokenFile, { force: true });
      return stdout + stderr;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };

  type Reply = { status: number; type: string; body: Buffer } | null;
  async function answer(path: string, body: Buffer, socket: import("node:net").Socket): Promise<Reply> {
    if (path === "/ca.crl" || path === "/ocsp") await pki.holdRevocation;
    if (path === "/ca.crl")
      return { status: 200, type: "application/pkix-crl", body: readFileSync(join(dir, "ca.crl")) };
    if (path === "/ca.crt")
      return { status: 200, type: "application/pkix-cert", body: readFileSync(join(dir, "ca.crt")) };
    if (path === "/ocsp") {
      if (pki.ocspDown) {
        socket.destroy();
        return null;
      }
      const reqFile = scratch();
      const respFile = scratch();
      writeFileSync(reqFile, body);
      await openssl(
        [
          "ocsp",
          "-index",
          "index.txt",
          "-CA",
          "ca.crt",
          "-rsigner",
          "ca.crt",
          "-rkey",
          "ca.key",
          "-reqin",
          reqFile,
          "-respout",
          respFile,
          "-ndays",
          "1",
        ],
        dir,
      );
      return { status: 200, type: "application/ocsp-response", body: readFileSync(respFile) };
    }
    if (path === "/tsa") {
      switch (pki.tsaMode) {
        case "down":
          socket.destroy();
          return null;
        case "error":
          return { status: 503, type: "text/plain", body: Buffer.from("busy") };
        case "garbage":
          return { status: 200, type: "application/timestamp-reply", body: randomBytes(300) };
        case "slow":
          await new Promise((resolve) => setTimeout(resolve, pki.slowMs));
          break;
        default:
          break;
      }
      const query =
        pki.tsaMode === "wrong-imprint"
          ? tamperQuery(body, "imprint")
          : pki.tsaMode === "wrong-nonce"
            ? tamperQuery(body, "nonce")
            : body;
      const queryFile = scratch();
      const replyFile = scratch();
      writeFileSync(queryFile, query);
      await openssl(["ts", "-reply", "-config", "openssl.cnf", "-queryfile", queryFile, "-out", replyFile], dir);
      return { status: 200, type: "application/timestamp-reply", body: readFileSync(replyFile) };
    }
    return { status: 404, type: "text/plain", body: Buffer.from("not found") };
  }

  return pki;
}
