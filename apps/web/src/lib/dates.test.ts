import { describe, expect, it } from "vitest";
import { dayFromNowIn, dayIn, endOfDayIn, formatDateTime, timeZoneLabel } from "./dates";

describe("the clinic's clock (issue 31: lists in the browser's zone, details in the clinic's)", () => {
  const instant = "2025-01-15T23:30:00Z";

  it("formats on the zone it is given, whatever the machine's zone", () => {
    expect(formatDateTime(instant, "de-DE", "Europe/Berlin")).toBe("16.01.2025, 00:30");
    expect(formatDateTime(instant, "en-GB", "America/New_York")).toBe("15 Jan 2025, 18:30");
    expect(formatDateTime(instant, "de-DE", "Europe/Berlin", true)).toBe("16. Jan. 2025, 00:30 MEZ");
  });

  it("names the zone in the reader's language, with its IANA name", () => {
    expect(timeZoneLabel("Europe/Berlin", "de-DE")).toBe("Mitteleuropäische Zeit (Europe/Berlin)");
    expect(timeZoneLabel("Europe/Berlin", "en-GB")).toBe("Central European Time (Europe/Berlin)");
    expect(timeZoneLabel("UTC", "en-GB")).toBe("UTC");
  });

  it("takes the calendar day of an instant on the clinic's clock", () => {
    expect(dayIn(instant, "Europe/Berlin")).toBe("2025-01-16");
    expect(dayIn(instant, "UTC")).toBe("2025-01-15");
    expect(dayFromNowIn(14, "Europe/Berlin", new Date(instant))).toBe("2025-01-30");
    expect(dayFromNowIn(1, "UTC", new Date("2025-02-28T12:00:00Z"))).toBe("2025-03-01");
  });

  it("ends an expiry day at 23:59:59 on the clinic's clock, in winter and summer time", () => {
    expect(endOfDayIn("2025-01-31", "Europe/Berlin")).toBe("2025-01-31T22:59:59.000Z");
    expect(endOfDayIn("2025-07-31", "Europe/Berlin")).toBe("2025-07-31T21:59:59.000Z");
    // The day clocks go forward (30 March 2025 in Germany) and back (26 October).
    expect(endOfDayIn("2025-03-30", "Europe/Berlin")).toBe("2025-03-30T21:59:59.000Z");
    expect(endOfDayIn("2025-10-26", "Europe/Berlin")).toBe("2025-10-26T22:59:59.000Z");
    expect(endOfDayIn("2025-07-31", "America/New_York")).toBe("2025-08-01T03:59:59.000Z");
    expect(endOfDayIn("2025-02-30", "UTC")).toBeUndefined();
    expect(endOfDayIn("31.07.2025", "UTC")).toBeUndefined();
  });
});
