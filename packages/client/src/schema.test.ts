import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";

// The generated types are checked in (a consumer needs no API build to use them); this keeps them
// current: a change to the route table or the contracts without `pnpm --filter @clinsign/client
// generate` fails here, in CI's test run.
it("src/schema.ts is generated from the current OpenAPI document", () => {
  expect(() =>
    execFileSync(process.execPath, [join(import.meta.dirname, "../scripts/generate.mjs"), "--check"], {
      stdio: "pipe",
    }),
  ).not.toThrow();
}, 120_000);
