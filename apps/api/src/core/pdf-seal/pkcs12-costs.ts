/**
 * What opening a PKCS#12 file will cost, read before it is opened: the iteration counts of its
 * MAC and of every password-based encryption visible without the password. node-forge reads
 * these counts from the file and derives keys with them before checking anything else, so a 1 KB
 * file naming 2³¹ iterations would keep a thread busy for an hour. Strict DER reading
 * (cms-verify.ts's reader; BER's indefinite lengths allowed, as some exporters write them).
 * Encrypted parts may hold further counts only the password reveals: the worker's deadline
 * (org-seal.ts) bounds those.
 */
import { octetsOf, oidOf, readDer, type Der } from "./der";

const OID = {
  data: "1.2.840.113549.1.7.1",
  pbes2: "1.2.840.113549.1.5.13",
  pbkdf2: "1.2.840.113549.1.5.12",
};
/** PKCS#12 PBE (pbeWithSHAAnd…) and PKCS#5 PBES1: parameters SEQUENCE { salt, iterations }. */
const isPbeParameterScheme = (oid: string) =>
  oid.startsWith("1.2.840.113549.1.12.1.") || /^1\.2\.840\.113549\.1\.5\.(1|3|4|6|10|11)$/.test(oid);

/** The file is not a PKCS#12 file this reader can follow. */
export class Pkcs12FormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Pkcs12FormatError";
  }
}

/** Data contents nest (authSafe → SafeContents → …); real files nest two deep. */
const MAX_DATA_NESTING = 6;

/** An INTEGER as a number; one that does not fit a safe integer, or is negative, as Infinity. */
function countOf(node: Der | undefined): number {
  if (!node || node.tag !== 0x02 || node.content.length === 0)
    throw new Pkcs12FormatError("iteration count is not an INTEGER");
  if (node.content[0]! & 0x80 || node.content.length > 6) return Infinity;
  return node.content.reduce((value, byte) => value * 256 + byte, 0);
}

function collect(node: Der, counts: number[], nesting: number): void {
  const first = node.children[0];
  if (node.tag === 0x30 && first?.tag === 0x06) {
    const oid = oidOf(first);
    const parameters = node.children[1];
    if (isPbeParameterScheme(oid)) counts.push(countOf(parameters?.children[1]));
    else if (oid === OID.pbes2) {
      const kdf = parameters?.children[0];
      if (oidOf(kdf?.children[0]) !== OID.pbkdf2) throw new Pkcs12FormatError("PBES2 without PBKDF2");
      counts.push(countOf(kdf?.children[1]?.children[1]));
    } else if (oid === OID.data && parameters?.tag === 0xa0) {
      // A ContentInfo of type data: its OCTET STRING holds more DER (AuthenticatedSafe, SafeContents).
      if (nesting >= MAX_DATA_NESTING) throw new Pkcs12FormatError("data nested too deep");
      const inner = parameters.children[0];
      if (!inner) throw new Pkcs12FormatError("empty data content");
      collect(parseWhole(octetsOf(inner)), counts, nesting + 1);
      return;
    }
  }
  for (const child of node.children) collect(child, counts, nesting);
}

function parseWhole(bytes: Buffer): Der {
  let node: Der;
  try {
    node = readDer(bytes);
  } catch (error) {
    throw new Pkcs12FormatError(error instanceof Error ? error.message : "not DER");
  }
  if (node.raw.length !== bytes.length) throw new Pkcs12FormatError("bytes after the DER element");
  return node;
}

/**
 * Every iteration count the file names before its password is checked: the MAC's (default 1)
 * and each PBE's. Throws Pkcs12FormatError when the file is not a PFX.
 */
export function pkcs12IterationCounts(p12: Buffer): number[] {
  const pfx = parseWhole(p12);
  // PFX: SEQUENCE { version INTEGER (3), authSafe ContentInfo, macData MacData OPTIONAL }
  const [version, authSafe, macData] = pfx.children;
  if (pfx.tag !== 0x30 || version?.tag !== 0x02 || authSafe?.tag !== 0x30 || pfx.children.length > 3)
    throw new Pkcs12FormatError("not a PFX");
  const counts: number[] = [];
  if (macData) {
    // MacData: SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER DEFAULT 1 }
    if (macData.tag !== 0x30) throw new Pkcs12FormatError("macData is not a SEQUENCE");
    counts.push(macData.children[2] ? countOf(macData.children[2]) : 1);
  }
  collect(authSafe, counts, 0);
  return counts;
}
