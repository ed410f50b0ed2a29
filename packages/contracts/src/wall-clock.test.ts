import { describe, expect, it } from "vitest";
import { wallClockAt } from "./wall-clock";

describe("wallClockAt", () => {
  it("reads the clinic's clock across the spring change of summer time, midnight as 00", () => {
    // Berlin moves from 02:00 to 03:00 at 01:00 UTC on the last Sunday of March.
    expect(wallClockAt(new Date("2024-03-31T00:59:59Z"), "Europe/Berlin")).toEqual({
      year: "2024",
      month: "03",
      day: "31",
      hour: "01",
      minute: "59",
      second: "59",
    });
    expect(wallClockAt(new Date("2024-03-31T01:00:00Z"), "Europe/Berlin")).toMatchObject({ hour: "03", minute: "00" });
    expect(wallClockAt(new Date("2024-12-31T23:00:00Z"), "Europe/Berlin")).toMatchObject({
      year: "2025",
      month: "01",
      day: "01",
      hour: "00",
    });
  });
});
