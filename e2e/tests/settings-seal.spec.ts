import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { expectAccessible } from "./forms-support";
import { hasHorizontalScroll, shot, signIn } from "./support";

let work: string;
let p12: string;
let caP12: string;

/**
 * A CA and a seal certificate it issued (valid `days` days), as a PKCS#12 with its chain
 * (openssl); also the CA itself as a PKCS#12, which must be refused.
 */
function makeP12(name: string, days: number, password: string): { seal: string; ca: string } {
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: work, stdio: "ignore" });
  run(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    `${name}-ca.key`,
    "-out",
    `${name}-ca.crt`,
    "-days",
    "3650",
    "-subj",
    "/CN=E2E Test CA/O=E2E Trust",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
  );
  run(
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.csr`,
    "-subj",
    "/CN=Demo Clinic Seal/O=Demo Clinic",
  );
  writeFileSync(join(work, `${name}.ext`), "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,nonRepudiation\n");
  run(
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    `${name}-ca.crt`,
    "-CAkey",
    `${name}-ca.key`,
    "-CAcreateserial",
    "-out",
    `${name}.crt`,
    "-extfile",
    `${name}.ext`,
    "-days",
    String(days),
  );
  run(
    "pkcs12",
    "-export",
    "-inkey",
    `${name}.key`,
    "-in",
    `${name}.crt`,
    "-certfile",
    `${name}-ca.crt`,
    "-out",
    `${name}.p12`,
    "-passout",
    `pass:${password}`,
  );
  run(
    "pkcs12",
    "-export",
    "-inkey",
    `${name}-ca.key`,
    "-in",
    `${name}-ca.crt`,
    "-out",
    `${name}-ca.p12`,
    "-passout",
    `pass:${password}`,
  );
  return { seal: join(work, `${name}.p12`), ca: join(work, `${name}-ca.p12`) };
}

test.beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "clinsign-e2e-seal-"));
  ({ seal: p12, ca: caP12 } = makeP12("seal", 30, "seal-pass"));
});
test.afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

for (const viewport of [
  { name: "phone", size: { width: 390, height: 844 } },
  { name: "desktop", size: { width: 1280, height: 800 } },
]) {
  test(`organization seal in Settings (${viewport.name}): refusals, chain, expiry warning, removal`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport.size);
    await signIn(page);
    await page.goto("/settings");
    const card = page.getByTestId("organization-seal");
    await expect(card.getByRole("heading", { name: "Organization seal" })).toBeVisible();
    await expect(card.getByText(/sealed with the development certificate/)).toBeVisible();

    // Wrong password: the password field says so.
    await card.getByLabel("PKCS#12 file (.p12, .pfx)").setInputFiles(p12);
    await card.getByLabel("Password of the file").fill("not-the-password");
    await card.getByRole("button", { name: "Upload and check" }).click();
    await expect(card.getByText("The password does not open this file.")).toBeVisible();
    await expect(card.getByLabel("Password of the file")).toHaveAttribute("aria-invalid", "true");

    // A CA certificate: the file field says so (every refusal is covered in org-seal.test.ts).
    await card.getByLabel("PKCS#12 file (.p12, .pfx)").setInputFiles(caP12);
    await card.getByLabel("Password of the file").fill("seal-pass");
    await card.getByRole("button", { name: "Upload and check" }).click();
    await expect(card.getByRole("alert").filter({ hasText: "This is a CA certificate." })).toBeVisible();
    await expectAccessible(page, "seal refused");
    await shot(page, `settings-seal-refused-${viewport.name}`);

    await card.getByLabel("PKCS#12 file (.p12, .pfx)").setInputFiles(p12);
    await card.getByLabel("Password of the file").fill("seal-pass");
    await card.getByRole("button", { name: "Upload and check" }).click();
    await expect(card.getByRole("status").filter({ hasText: "now used for new seals" })).toBeVisible();
    await expect(card.getByText("CN=Demo Clinic Seal, O=Demo Clinic").first()).toBeVisible();
    await expect(card.getByText("Certificate chain")).toBeVisible();
    await expect(card.getByText("CN=E2E Test CA, O=E2E Trust").first()).toBeVisible();
    await expect(card.getByRole("status").filter({ hasText: /expires in (29|30) days/ })).toBeVisible();
    await expect(card.getByLabel("Password of the file")).toHaveValue("");
    await expectAccessible(page, "seal uploaded");
    expect(await hasHorizontalScroll(page)).toBe(false);
    await card.scrollIntoViewIfNeeded();
    await shot(page, `settings-seal-uploaded-${viewport.name}`);

    // Removed again, so the other specs seal with the default certificate.
    await card.getByRole("button", { name: "Remove certificate" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Remove the organization's certificate?" });
    await dialog.getByRole("button", { name: "Remove", exact: true }).click();
    await expect(card.getByText(/sealed with the development certificate/)).toBeVisible();
  });
}
