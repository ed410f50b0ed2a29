import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { SignatureTimelineEvent } from "@clinsign/contracts";
import { de } from "../../i18n/de";
import { en } from "../../i18n/en";
import { formatDateTime } from "../../lib/dates";
import { Timeline } from "./Timeline";

const events: SignatureTimelineEvent[] = [
  { at: "2026-03-01T08:00:00.000Z", kind: "created", actorType: "api_key" },
  { at: "2026-03-04T08:00:00.000Z", kind: "reminder_sent", actorType: "system", detail: "sms" },
  { at: "2026-03-05T08:00:00.000Z", kind: "reminder_not_sent", actorType: "system", detail: "no_channel" },
  { at: "2026-03-06T08:00:00.000Z", kind: "declined", actorType: "signer" },
  { at: "2026-03-06T08:00:01.000Z", kind: "staff_notified", actorType: "system", detail: "email" },
];

const render = (s: typeof en.signatureRequestsPage, locale: string) =>
  renderToStaticMarkup(
    createElement(Timeline, { events, s, dateTime: (iso: string) => formatDateTime(iso, locale, "Europe/Berlin") }),
  )
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");
// Each entry: its label, its time, then the channel.

describe("the request's timeline shows reminders and notices", () => {
  it("says what was sent and on which channel, or that there was none, in English", () => {
    const text = render(en.signatureRequestsPage, "en-GB");
    expect(text).toMatch(/Reminder sent .{5,30}? SMS/);
    expect(text).toMatch(/Reminder not sent .{5,30}? no channel/);
    expect(text).toMatch(/Staff notified .{5,30}? E-mail/);
    // On the clinic's clock it is given (08:00 UTC is 09:00 in Berlin in March).
    expect(text).toContain("Created 1 Mar 2026, 09:00");
  });

  it("and in German", () => {
    const text = render(de.signatureRequestsPage, "de-DE");
    expect(text).toMatch(/Erinnerung gesendet .{5,30}? SMS/);
    expect(text).toMatch(/Erinnerung nicht gesendet .{5,30}? kein Kanal/);
    expect(text).toMatch(/Mitarbeitende benachrichtigt .{5,30}? E-Mail/);
  });
});
