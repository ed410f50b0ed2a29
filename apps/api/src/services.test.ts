import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "@clinsign/db";
import { describeError, serializeError } from "./log-errors";
import { activeTemplate, creds } from "./testing/forms";
import { logSink, startTestApi, type TestApi, type TestOrg } from "./testing/harness";

describe("logs of failing queries", () => {
  const { sink, lines } = logSink();
  let api: TestApi;
  let org: TestOrg;

  beforeAll(async () => {
    api = await startTestApi({}, { logSink: sink });
    org = await api.createOrg();
    // Every new draft now fails in the database, with the values in the statement's parameters.
    await api.services.db.execute(sql.raw("alter table drafts add constraint refuse_all check (false) not valid"));
  });
  afterAll(() => api?.close());

  const personal = { name: "Erika Mustermann", phone: "+491511234567", rnummer: "R-998877" };

  it("carry the statement and the database error code, never parameters or values, on either door", async () => {
    const t = await activeTemplate(org, [
      { id: "1", type: "text", key: "name", label: "Name" },
      { id: "2", type: "text", key: "phone", label: "Telefon" },
      { id: "3", type: "text", key: "rnummer", label: "Fall" },
    ]);
    const rest = await api.request("POST", "/api/embed/drafts", {
      body: { ...creds(org), templateIdentifier: t.identifier, draftKey: "case-4711", values: personal },
    });
    expect(rest.status).toBe(500);
    await expect(
      api
        .trpc({ bearer: org.token })
        .drafts.save.mutate({ templateIdentifier: t.identifier, draftKey: "case-4711", values: personal }),
    ).rejects.toThrow();
    const log = lines.join("");
    const failures = lines.filter((line) => line.includes('"level":50'));
    expect(failures.length).toBe(2);
    for (const value of [...Object.values(personal), "case-4711", t.identifier]) expect(log).not.toContain(value);
    for (const line of failures) {
      expect(line).toContain('"code":"23514"');
      expect(line).toContain('insert into \\"drafts\\"');
    }
  });

  it("describe a failed job's query without the values PostgreSQL quotes in its message", async () => {
    const error = await api.services.db.execute(sql`select ${personal.name}::uuid`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect(describeError(error)).toBe("database query failed (22P02 in select)");
    // A statement that changes in a WITH is named by its change, not by the first table it reads.
    const inWith = await api.services.db
      .execute(
        sql`with found as (select id from organizations where name = ${personal.name}), changed as (update "drafts" set values = ${personal.phone}::jsonb where false) select 1`,
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(describeError(inWith)).toBe('database query failed (22P02 in update "drafts")');
    expect(JSON.stringify(serializeError(error))).not.toContain(personal.name);
  });
});
