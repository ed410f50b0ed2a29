/**
 * Writes the OpenAPI document to a file (or stdout): the input of `pnpm openapi:lint` (Redocly),
 * the contract test's validating proxy and the typed client in packages/client.
 * Usage: tsx src/rest/openapi-file.ts [out.json] [server URL]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { openApiDocument } from "./openapi";

const [out, serverUrl = "https://clinsign.klinik.example"] = process.argv.slice(2);
const json = `${JSON.stringify(openApiDocument(serverUrl), null, 2)}\n`;
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, json);
} else process.stdout.write(json);
