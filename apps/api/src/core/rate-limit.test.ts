import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rateLimits, sql, type Database } from "@clinsign/db";
import { createTestDb } from "@clinsign/db/testing";
import { addressKey, consumeRateLimit, pruneRateLimits, refundRateLimit } from "./rate-limit";

let database: Database;
beforeAll(async () => {
  database = await createTestDb();
});
afterAll(() => database?.close());

describe("rate-limit counters", () => {
  it("count per window, and are pruned once their window has ended", async () => {
    const { db } = database;
    for (let i = 0; i < 3; i++)
      await consumeRateLimit(db, { key: "login:ip:198.51.100.1", limit: 3, windowSeconds: 600 });
    await expect(
      consumeRateLimit(db, { key: "login:ip:198.51.100.1", limit: 3, windowSeconds: 600 }),
    ).rejects.toMatchObject({ code: "rate_limited" });
    await db.execute(
      sql`insert into ${rateLimits} (key, count, reset_at) values ('login:ip:203.0.113.1', 1, now() - interval '1 second'), ('login:ip:203.0.113.2', 9, now() - interval '1 day')`,
    );
    expect(await pruneRateLimits(db)).toBe(2);
    const keys = (await db.select({ key: rateLimits.key }).from(rateLimits)).map((r) => r.key);
    expect(keys).toEqual(["login:ip:198.51.100.1"]);
  });

  it("take back a counted attempt: successes between failures never reach the limit", async () => {
    const { db } = database;
    const rule = { key: "login:ip:198.51.100.7", limit: 3, windowSeconds: 600 };
    for (let i = 0; i < 10; i++) {
      await consumeRateLimit(db, rule);
      await refundRateLimit(db, rule.key);
    }
    for (let i = 0; i < 3; i++) await consumeRateLimit(db, rule);
    await expect(consumeRateLimit(db, rule)).rejects.toMatchObject({ code: "rate_limited" });
  });
});

describe("addressKey", () => {
  it("counts an IPv6 address by its /64 and an IPv4-mapped address as the IPv4 address", () => {
    expect(addressKey("198.51.100.7")).toBe("198.51.100.7");
    expect(addressKey("2001:db8:a:b::1")).toBe("2001:db8:a:b::/64");
    expect(addressKey("2001:0DB8:000a:000b:ffff:1:2:3")).toBe("2001:db8:a:b::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(addressKey(null)).toBe("unknown");
  });
});
