import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roles, staffPermissions, type Role } from "@clinsign/contracts";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../testing/harness";
import { appRouter } from "./root";
import { createStaffUser } from "../core/identity/store/accounts";

/**
 * The permission table walk: every procedure of the app router that a staff session can reach has
 * an entry in `staffPermissions`, and each role is refused (403) exactly where the table says so.
 * A new procedure without an entry fails here.
 */

/**
 * Procedures without credentials (the sign-in steps, patient portals, invite links, anyone's PDF
 * check): the table does not apply.
 */
const PUBLIC = [
  /^auth\.(login|logout|ssoProvider|verifyCode|passkeyOptions|verifyPasskey|passkeySignIn|enroll\w+|ssoLink\w+)$/,
  /^invitations\./,
  /^signing\./,
  /^smsForm\./,
  /^publicEmbeds\.(describe|start)$/,
  /^verify\.check$/,
];

interface ProcedureDef {
  _def: { type: "query" | "mutation" | "subscription" };
}
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, ProcedureDef>).map(
  ([path, p]) => ({ path, type: p._def.type }),
);
const staffReachable = procedures.filter((p) => !PUBLIC.some((re) => re.test(p.path)));

let api: TestApi;
let org: TestOrg;
const cookies = {} as Record<Role, string>;

beforeAll(async () => {
  api = await startTestApi();
  org = await api.createOrg("Tabelle");
  for (const role of roles) {
    const email = `${role}-walk@example.org`;
    await createStaffUser(api.services, { organizationId: org.orgId, email, password: "walk the table", role });
    cookies[role] = await logInCookie(api, email, "walk the table");
  }
});
afterAll(() => api?.close());

/** Calls a procedure with an empty input: roles are checked before the input, so 403 means the table refused. */
async function call(path: string, type: string, cookie: string): Promise<number> {
  const input = encodeURIComponent(JSON.stringify({}));
  const response =
    type === "query"
      ? await fetch(`${api.baseUrl}/trpc/${path}?input=${input}`, { headers: { cookie } })
      : await fetch(`${api.baseUrl}/trpc/${path}`, {
          method: "POST",
          headers: { cookie, "content-type": "application/json" },
          body: "{}",
        });
  await response.arrayBuffer();
  return response.status;
}

describe("the permission table", () => {
  it("has one entry for every procedure a staff session can reach, and none for anything else", () => {
    expect(staffReachable.length).toBeGreaterThan(80);
    expect(staffReachable.map((p) => p.path).sort()).toEqual(Object.keys(staffPermissions).sort());
  });

  it("keeps viewers to reading: every change is refused but to their own sessions and sign-in factors", () => {
    const viewerMutations = staffReachable.filter(
      (p) => p.type === "mutation" && (staffPermissions as Record<string, readonly Role[]>)[p.path]!.includes("viewer"),
    );
    const ownAccount = /^(account|accountSecurity)\./;
    // The two that compute an answer and store nothing: the audit chain check and SDC $extract.
    expect(viewerMutations.filter((p) => !ownAccount.test(p.path)).map((p) => p.path)).toEqual([
      "audit.verify",
      "fhir.extract",
    ]);
  });

  for (const role of roles) {
    it(`answers the ${role} role 403 exactly where the table refuses it`, async () => {
      const mismatches: string[] = [];
      // "End all sessions" ends the walk's own session too: it goes last.
      const walk = [...staffReachable].sort(
        (a, b) => Number(a.path === "account.endAllSessions") - Number(b.path === "account.endAllSessions"),
      );
      for (const { path, type } of walk) {
        const status = await call(path, type, cookies[role]);
        const allowed = (staffPermissions as Record<string, readonly Role[]>)[path]!.includes(role);
        if (allowed === (status === 403))
          mismatches.push(`${path}: ${status} (table: ${allowed ? "allowed" : "refused"})`);
      }
      expect(mismatches).toEqual([]);
      // Only the last call ended the walk's own session (ending one's other sessions leaves it).
      await expect(api.trpc({ cookie: cookies[role] }).auth.me.query()).rejects.toMatchObject({
        data: { httpStatus: 401 },
      });
      cookies[role] = await logInCookie(api, `${role}-walk@example.org`, "walk the table");
    }, 120_000);
  }

  it("refuses a viewer's file routes that change data and lets them download", async () => {
    const upload = await fetch(`${api.baseUrl}/staff/documents`, {
      method: "POST",
      headers: { cookie: cookies.viewer, "content-type": "multipart/form-data; boundary=x", origin: api.baseUrl },
      body: "--x--\r\n",
    });
    expect(upload.status).toBe(403);
    const exportCsv = await fetch(`${api.baseUrl}/staff/submissions/export?format=csv`, {
      headers: { cookie: cookies.viewer },
    });
    expect(exportCsv.status).toBe(200);
    await exportCsv.arrayBuffer();
  });
});
