/**
 * The test PKI (src/testing/pki.ts) in a process of its own, for the completion bench: a TSA and
 * OCSP responder are other machines in production, so their work (HTTP, spawning openssl) must
 * not run on the event loop being measured. Prints one JSON line (tsaUrl, hostPort, sealP12),
 * then serves until stdin closes.
 */
import { startTestPki } from "../src/testing/pki";

const pki = await startTestPki();
process.stdout.write(`${JSON.stringify({ tsaUrl: pki.tsaUrl, hostPort: pki.hostPort, sealP12: pki.sealP12 })}\n`);
process.stdin.resume();
process.stdin.on("end", () => void pki.close().then(() => process.exit(0)));
