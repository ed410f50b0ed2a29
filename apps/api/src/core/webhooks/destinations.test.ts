import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logInCookie, startTestApi, type TestApi, type TestOrg } from "../../testing/harness";

/**
 * Issue 31: an http:// webhook URL was accepted in Settings and failed only at delivery. Saving
 * now applies delivery's own rule (destinations.ts): https, or a host the deployment allows.
 */
let api: TestApi;
let org: TestOrg;
let owner: ReturnType<TestApi["trpc"]>;
beforeAll(async () => {
  // A local receiver the deployment allows, as the e2e run and a clinic's own network do.
  api = await startTestApi({ OUTBOUND_ALLOW_HOSTS: "127.0.0.1:8099,his.klinik.internal" });
  org = await api.createOrg();
  owner = api.trpc({ cookie: await logInCookie(api, org.ownerEmail, org.ownerPassword) });
});
afterAll(() => api?.close());

describe("default webhook URLs in Settings are checked as delivery will check them", () => {
  it("refuses http:// with a 400 naming the URL's row, and saves nothing", async () => {
    await owner.organization.update.mutate({ webhookUrls: ["https://his.example.org/hooks"] });
    const refused = owner.organization.update.mutate({
      webhookUrls: ["https://his.example.org/hooks", "http://his.example.org/hooks"],
    });
    await expect(refused).rejects.toMatchObject({
      message: expect.stringMatching(/^webhookUrls\.1: must be an https URL/),
      data: {
        httpStatus: 400,
        details: { field: "webhookUrls.1" },
        fieldErrors: [{ key: "webhookUrls.1", message: expect.stringMatching(/^must be an https URL/) }],
      },
    });
    expect((await owner.organization.settings.query()).webhookUrls).toEqual(["https://his.example.org/hooks"]);
  });

  it("refuses a private or loopback address that is not allowed, and a URL with credentials", async () => {
    for (const [url, message] of [
      ["https://10.0.0.8/hooks", /^points at a private or loopback address/],
      ["https://127.0.0.1:8443/hooks", /^points at a private or loopback address/],
      ["https://user:secret@his.example.org/hooks", /^must not contain a user name or password/],
    ] as const) {
      await expect(owner.organization.update.mutate({ webhookUrls: [url] })).rejects.toMatchObject({
        data: { httpStatus: 400, fieldErrors: [{ key: "webhookUrls.0", message: expect.stringMatching(message) }] },
      });
    }
  });

  it("takes http:// to a host the deployment allows in OUTBOUND_ALLOW_HOSTS (a local test receiver)", async () => {
    const urls = ["http://127.0.0.1:8099/clinsign", "http://his.klinik.internal/hooks"];
    expect((await owner.organization.update.mutate({ webhookUrls: urls })).webhookUrls).toEqual(urls);
    // The allowed port only.
    await expect(
      owner.organization.update.mutate({ webhookUrls: ["http://127.0.0.1:8100/clinsign"] }),
    ).rejects.toMatchObject({ data: { httpStatus: 400, details: { field: "webhookUrls.0" } } });
  });
});
