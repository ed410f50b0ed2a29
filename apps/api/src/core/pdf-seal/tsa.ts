/**
 * RFC 3161 time stamps from the operator's time-stamping authority (TSA_URL): the signature
 * time stamp of every seal (PAdES B-T) and the document time stamps of B-LTA. Each request
 * carries a fresh nonce and asks for the TSA's certificate; each reply is checked before it is
 * used: status granted, message imprint and nonce as sent, token signature valid, signed by a
 * time-stamping certificate. Anything else throws a TimestampError, and the caller does not
 * seal: a seal never goes out without its time.
 */
import { createHash, randomBytes, X509Certificate } from "node:crypto";
import forge from "node-forge";
import type { Config } from "../../env";
import { guardedFetch, OutboundError } from "../outbound/guarded-fetch";
import {
  algorithm,
  bool,
  CmsError,
  der,
  digestName,
  fromDer,
  int,
  OID,
  seq,
  subjectText,
  toBuffer,
  verifySignedData,
  U,
  T,
  octets,
} from "./cms";
import { childrenOf, isDefinite, oidOf, readDer, readWholeDer, TAG, type Der } from "./der";

export type TimestampFailure =
  | "unreachable"
  | "timeout"
  | "http_status"
  | "malformed"
  | "rejected"
  | "imprint_mismatch"
  | "nonce_mismatch"
  | "bad_signature"
  | "not_a_tsa";

export class TimestampError extends Error {
  override name = "TimestampError";
  constructor(
    readonly reason: TimestampFailure,
    detail: string,
  ) {
    super(`time-stamping authority: ${detail} (${reason})`);
  }
}

export interface Timestamp {
  /** The TimeStampToken (a CMS ContentInfo), DER. */
  token: Buffer;
  genTime: Date;
  /** The TSA certificate's subject. */
  tsa: string;
  serialNumber: string;
  policy: string;
  /** The certificates the token carries (the TSA's, maybe its chain), DER. */
  certificates: Buffer[];
  signer: X509Certificate;
  /** Milliseconds spent waiting for the TSA (network and its signing). */
  waitMs: number;
}

const REPLY_MAX_BYTES = 256 * 1024;

/** A positive 63-bit nonce, minimally encoded (first byte 0x40–0x7F). */
function makeNonce(): Buffer {
  const nonce = randomBytes(8);
  nonce[0] = (nonce[0]! & 0x3f) | 0x40;
  return nonce;
}

/** TimeStampReq v1 over a SHA-256 digest, with nonce and certReq. */
export function timestampRequest(digest: Buffer, nonce: Buffer): Buffer {
  const request = seq([
    int(1),
    seq([algorithm(OID.sha256), octets(digest.toString("binary"))]),
    forge.asn1.create(U, T.INTEGER, false, nonce.toString("binary")),
    bool(true),
  ]);
  return toBuffer(der(request));
}

/**
 * Checks a TimeStampResp against what was asked and returns its token. Exported for the tests of
 * the reply checks; the service calls `requestTimestamp`.
 */
export function checkTimestampReply(reply: Buffer, digest: Buffer, nonce: Buffer): Omit<Timestamp, "waitMs"> {
  const [statusInfo, tokenNode] = childrenOf(replyAsDer(reply));
  const statusBytes = childrenOf(statusInfo)[0]?.content;
  if (!statusInfo || !statusBytes) throw new TimestampError("malformed", "the reply is not a time-stamp response");
  const status = statusBytes.length === 1 ? statusBytes[0]! : -1;
  if (status !== 0 && status !== 1) {
    const text = childrenOf(childrenOf(statusInfo)[1])
      .map((line) => line.content.toString("latin1"))
      .join("; ")
      .replace(/[^\x20-\x7e]/g, "?")
      .slice(0, 200);
    throw new TimestampError("rejected", `the request was refused (status ${status}${text ? `: ${text}` : ""})`);
  }
  if (!tokenNode) throw new TimestampError("malformed", "the reply grants but carries no token");
  // The token as received goes into the seal's signature. A TSA answering in BER (indefinite
  // lengths, as some Java TSAs do) has its token encoded as DER first.
  const token = isDefinite(tokenNode) ? tokenNode.raw : toBuffer(der(fromDer(tokenNode.raw)));
  let verified;
  try {
    verified = verifySignedData(token);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new TimestampError(
      error instanceof CmsError && /signature|digest|signing-certificate/.test(detail) ? "bad_signature" : "malformed",
      `token: ${detail}`,
    );
  }
  if (verified.contentType !== OID.tstInfo) throw new TimestampError("malformed", "the token does not hold TSTInfo");
  let info;
  try {
    info = childrenOf(readDer(verified.content));
  } catch {
    throw new TimestampError("malformed", "TSTInfo is not DER");
  }
  // TSTInfo: version, policy, messageImprint, serialNumber, genTime, accuracy?, ordering?, nonce?, tsa [0]?, extensions [1]?
  const [, policyNode, imprint, serialNode, genTimeNode, ...rest] = info;
  const [imprintAlg, imprintHash] = childrenOf(imprint);
  if (digestName(imprintAlg) !== "sha256" || !imprintHash?.content.equals(digest))
    throw new TimestampError("imprint_mismatch", "the token stamps another message");
  const nonceNode = rest.find((n) => n.tag === TAG.integer);
  if (!nonceNode?.content.equals(nonce))
    throw new TimestampError("nonce_mismatch", "the token does not answer this request (nonce)");
  const genTime = forge.asn1.generalizedTimeToDate(genTimeNode?.content.toString("latin1") ?? "");
  if (Number.isNaN(genTime.getTime())) throw new TimestampError("malformed", "genTime is not a time");
  const signer = verified.signer;
  // RFC 3161 2.3: the TSA's certificate has the one extended key usage timeStamping, critical.
  if (!(signer.keyUsage ?? []).includes(OID.timeStamping))
    throw new TimestampError("not_a_tsa", "the token's signer is not a time-stamping certificate");
  if (genTime < new Date(signer.validFrom) || genTime > new Date(signer.validTo))
    throw new TimestampError("not_a_tsa", "the TSA certificate was not valid at genTime");
  return {
    token,
    genTime,
    tsa: subjectText(signer),
    serialNumber: serialNode?.content.toString("hex") ?? "",
    policy: oidOf(policyNode),
    certificates: verified.certificates,
    signer,
  };
}

/** The reply's elements, or a TimestampError. */
function replyAsDer(reply: Buffer): Der {
  try {
    return readWholeDer(reply);
  } catch {
    throw new TimestampError("malformed", "the reply is not a time-stamp response");
  }
}

/**
 * Asks the configured TSA for a time stamp over `data` (SHA-256 of it is the message imprint).
 * Through the outbound guard: https, or http (time stamps are signed answers); private and
 * loopback addresses only when OUTBOUND_ALLOW_HOSTS lists the TSA's host.
 */
export async function requestTimestamp(
  config: Pick<Config, "tsa" | "outboundAllowHosts">,
  data: Buffer,
): Promise<Timestamp> {
  const tsa = config.tsa;
  if (!tsa) throw new Error("no TSA_URL configured");
  const digest = createHash("sha256").update(data).digest();
  const nonce = makeNonce();
  const headers: Record<string, string> = {
    "content-type": "application/timestamp-query",
    accept: "application/timestamp-reply",
  };
  if (tsa.username)
    headers.authorization = `Basic ${Buffer.from(`${tsa.username}:${tsa.password ?? ""}`).toString("base64")}`;
  const started = performance.now();
  let response;
  try {
    response = await guardedFetch(
      tsa.url,
      { allowHosts: config.outboundAllowHosts, allowPlainHttp: true },
      {
        method: "POST",
        headers,
        body: timestampRequest(digest, nonce),
        timeoutMs: tsa.timeoutMs,
        maxBytes: REPLY_MAX_BYTES,
        purpose: "tsa",
      },
    );
  } catch (error) {
    if (error instanceof OutboundError)
      throw new TimestampError(
        error.reason === "timeout" ? "timeout" : "unreachable",
        `${error.reason}: ${error.message}`,
      );
    throw new TimestampError("unreachable", error instanceof Error ? error.message : String(error));
  }
  const waitMs = performance.now() - started;
  if (response.status !== 200) throw new TimestampError("http_status", `HTTP ${response.status}`);
  return { ...checkTimestampReply(response.body, digest, nonce), waitMs };
}
