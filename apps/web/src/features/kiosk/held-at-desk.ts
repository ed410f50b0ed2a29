"use client";

import { useEffect, useEffectEvent, useState } from "react";
import { closedState } from "../signing/closed-state";
import { sendHeldSignature } from "../signing/use-offline-signing";
import { createPatientApi } from "../patient/api";
import { forgetLink, heldActions, type HeldActionOfLink } from "../patient/offline/held";
import { forgetKeptPage, useOnline } from "../patient/offline/service-worker";
import { isUnreached, readApiError } from "../../trpc/errors";

/** How often the locked screen looks again (a held signature's time may run out while offline). */
const LOOK_AGAIN_MS = 30_000;

/**
 * What the desk's locked screen says of signatures kept on the device: none; one waiting for the
 * network; sending; sent (all of them); or deleted unsent (its pass ran out before the network
 * came back, or the request closed meanwhile).
 */
export type HeldAtDesk = "none" | "waiting" | "sending" | "sent" | "deleted";

/** What became of one held signature on this round. */
type Outcome = "sent" | "deleted" | "kept";

async function settle(action: HeldActionOfLink, online: boolean): Promise<Outcome> {
  if (action.until && Date.parse(action.until) <= Date.now()) {
    await forgetLink(action.link);
    return "deleted";
  }
  if (!online) return "kept";
  const api = createPatientApi();
  try {
    const state = await sendHeldSignature(action, (input) => api.call("signing.sign", input));
    await forgetLink(action.link);
    return state ? "sent" : "deleted";
  } catch (error) {
    if (isUnreached(error)) return "kept";
    // Refused for good (the pass ended, the request closed meanwhile): it cannot be sent any more.
    const api = readApiError(error);
    if (api.code === "UNAUTHORIZED" || closedState(api) || api.code === "BAD_REQUEST") {
      await forgetLink(action.link);
      return "deleted";
    }
    return "kept";
  }
}

/**
 * The desk's locked screen sends what the last patient signed offline (issue 35): at once, when
 * the network returns, and every 30 s; a signature whose pass ran out is deleted unsent and the
 * screen says so. `onAllSent` runs once nothing is kept any more after something was sent.
 */
export function useHeldAtDesk(onAllSent?: () => void): HeldAtDesk {
  const online = useOnline();
  const [state, setState] = useState<HeldAtDesk>("none");
  const [round, setRound] = useState(0);
  const allSent = useEffectEvent(() => onAllSent?.());
  useEffect(() => {
    let active = true;
    const timer = window.setTimeout(() => setRound((n) => n + 1), LOOK_AGAIN_MS);
    void (async () => {
      const held = await heldActions().catch(() => []);
      if (held.length === 0) return;
      if (active && online) setState("sending");
      const outcomes: Outcome[] = [];
      for (const action of held) outcomes.push(await settle(action, online).catch((): Outcome => "kept"));
      if (!active) return;
      if (outcomes.includes("kept")) return setState("waiting");
      if (outcomes.includes("sent")) await forgetKeptPage().catch(() => {});
      setState(outcomes.includes("deleted") ? "deleted" : "sent");
      if (!outcomes.includes("deleted")) allSent();
    })();
    return () => {
      active = false;
      window.clearTimeout(timer);
    };
  }, [online, round]);
  return state;
}
