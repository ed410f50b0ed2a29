import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificate, makeP12, withIterationCounts } from "../../testing/certificates";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";
import { pkcs12IterationCounts } from "../pdf-seal/pkcs12-costs";

let api: TestApi;
let orgA: TestOrg;
let orgB: TestOrg;
let adminA: ReturnType<TestApi["trpc"]>;
let adminB: ReturnType<TestApi["trpc"]>;
let ordinary: string;

beforeAll(async () => {
  // A short deadline, and a cap (2,000,000 by default) raised far above what a 2 s deadline lets
  // any machine derive, so that a file under the cap overruns the deadline everywhere.
  api = await startTestApi({ SEAL_P12_TIMEOUT_SECONDS: "2", SEAL_P12_MAX_ITERATIONS: "90000000" });
  orgA = await api.createOrg("Klinikum West");
  orgB = await api.createOrg("Klinikum Ost");
  adminA = api.trpc({ cookie: await logInCookie(api, orgA.ownerEmail, orgA.ownerPassword) });
  adminB = api.trpc({ cookie: await logInCookie(api, orgB.ownerEmail, orgB.ownerPassword) });
  ordinary = makeP12("pw", [makeCertificate({ commonName: "Klinikum West Siegel" })]);
});
afterAll(async () => {
  await api?.close();
});

const upload = (p12Base64: string, password = "pw") => adminA.organization.uploadSeal.mutate({ p12Base64, password });

describe("organization seal upload: files whose key derivation would stall the service", () => {
  it("reads the MAC's and the key bag's iteration counts before opening the file", () => {
    const p12 = Buffer.from(withIterationCounts(ordinary, { mac: 2 ** 31, keyBag: 3_000_000 }), "base64");
    expect(pkcs12IterationCounts(p12)).toEqual([2 ** 31, 3_000_000]);
    expect(pkcs12IterationCounts(Buffer.from(ordinary, "base64"))).toEqual([2048, 2048]);
  });

  it.each([
    ["a MAC asking for one iteration more than the cap", { mac: 90_000_001 }],
    ["a MAC asking for 2³¹ iterations", { mac: 2 ** 31 }],
    ["a key bag asking for one iteration more than the cap", { keyBag: 90_000_001 }],
  ])("refuses %s with 400 iteration_count, before deriving anything", async (_name, counts) => {
    await expect(upload(withIterationCounts(ordinary, counts))).rejects.toMatchObject({
      data: { httpStatus: 400, details: { reason: "iteration_count", field: "file" }, fieldErrors: [{ key: "file" }] },
    });
  });

  it("opens a file under the cap in a worker: /healthz and another organization answer meanwhile, and the deadline ends it", async () => {
    // Minutes of forge's key derivation on any machine (2,000,000 iterations take 1.5–5 s):
    // only the 2 s deadline can end it.
    const costly = withIterationCounts(ordinary, { mac: 89_000_000 });
    let settled = false;
    const pending = upload(costly, "wrong").then(
      () => "opened",
      (error: { data?: { details?: { reason?: string } } }) => error.data?.details?.reason,
    );
    void pending.finally(() => (settled = true));
    const slowest: number[] = [];
    // Give the worker a moment to start deriving, then measure while it does.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 5 && !settled; i++) {
      const started = performance.now();
      const health = await api.request("GET", "/healthz");
      slowest.push(performance.now() - started);
      expect(health).toMatchObject({ status: 200, body: { ok: true } });
      expect((await adminB.organization.seal.query()).own).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(slowest.length).toBeGreaterThan(0);
    expect(Math.max(...slowest)).toBeLessThan(500);
    expect(await pending).toBe("open_timeout");
  }, 60_000);

  it("still opens an ordinary file (OpenSSL's default count) afterwards", async () => {
    const seal = await upload(ordinary);
    expect(seal.own?.certificate.subject).toBe("CN=Klinikum West Siegel, O=Klinikum West Siegel");
  });

  it("refuses a file that is not DER before it reaches the worker", async () => {
    const truncated = Buffer.from(ordinary, "base64").subarray(0, 600).toString("base64");
    await expect(upload(truncated)).rejects.toMatchObject({
      data: { httpStatus: 400, details: { reason: "not_pkcs12", field: "file" } },
    });
  });
});
