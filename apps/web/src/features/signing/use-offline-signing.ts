"use client";

import type { PatientLanguage, SignInput, SigningView } from "@clinsign/contracts";
import { useCallback, useEffect, useRef, useState, type Dispatch } from "react";
import { isUnreached, readApiError } from "../../trpc/errors";
import {
  canHold,
  forgetLink,
  heldActions,
  holdAction,
  type HeldActionOfLink,
  openHeldAction,
  rememberHoldKey,
} from "../patient/offline/held";
import { forgetKeptPage, useOnline } from "../patient/offline/service-worker";
import { useLinkId } from "../patient/offline/use-link-id";
import { closedState } from "./closed-state";
import { credentialKey, type SigningCredential } from "./session";
import type { SignatureSubmission, SignOutcome } from "./SignForm";
import { screenOnClosed, type SigningFlowAction, type SigningFlowState } from "./signing-flow-state";

/** A held signature is tried again this often while the page is open and believes it is online. */
const RESEND_MS = 15_000;

/** What a held signature holds: what the sign form sent, the page's language, the pass it was made under. */
interface HeldSignature extends SignatureSubmission {
  language: PatientLanguage;
  /** Inside the encryption, never in clear: the desk's locked screen sends with it (a ticket opens once). */
  pass: string | null;
}

type Sign = (input: SignInput) => Promise<{ state: "sealing" | "completed" | "signed" }>;

/**
 * Signing offline (issue 35, docs/signatures.md "Offline"): a signature made without a network is
 * held on this device, encrypted with the link's key from the server's first answer, and sent by
 * itself when the network returns (at once when the page is open, else when the link is opened
 * again), with the device's time of signing and the action's id, so a resend after a lost answer
 * signs nothing twice. Sent or refused for good (the link closed meanwhile), it is deleted.
 */
export function useOfflineSigning(
  credential: SigningCredential,
  flow: SigningFlowState,
  dispatch: Dispatch<SigningFlowAction>,
  sign: Sign,
  language: PatientLanguage,
) {
  const online = useOnline();
  const link = useLinkId(credentialKey(credential));
  const { screen, view, sessionToken } = flow;

  useHeldOnStart(link, dispatch);
  useHoldKey(link, view);
  useReopenWhenOnline(online, flow, dispatch);
  useForgetWhenClosed(link, flow, dispatch);
  useSendHeld(link, screen.kind === "held" && online ? sessionToken : null, sign, dispatch);

  // Past this, a held signature is deleted unsent: the server's hold time (a ticket's device: the
  // service's setting within the pass, since a ticket opens once; a link: until it expires).
  const until = view?.holdUntil ?? null;

  /** The sign form's submit: sent when there is a network, held on the device when there is none. */
  const submit = useCallback(
    async (
      input: SignatureSubmission,
      send: (input: SignatureSubmission & { actionId: string }) => Promise<{ state: SignOutcome }>,
    ): Promise<{ state: SignOutcome }> => {
      const action = { id: crypto.randomUUID(), heldAt: new Date().toISOString(), until };
      const hold = async () => {
        const held: HeldSignature = { ...input, language, pass: sessionToken };
        await holdAction(link!, "signature", held, action);
        return { state: "held" as const };
      };
      if (!navigator.onLine && link && (await canHold(link))) return hold();
      try {
        return await send({ ...input, actionId: action.id });
      } catch (error) {
        if (isUnreached(error) && link && (await canHold(link))) return hold();
        throw error;
      }
    },
    [link, language, sessionToken, until],
  );
  return { submit, online };
}

/** A signature held by an earlier visit (a reload, a reopened tab) is shown as waiting, and sent. */
function useHeldOnStart(link: string | null, dispatch: Dispatch<SigningFlowAction>) {
  useEffect(() => {
    if (!link) return;
    let active = true;
    heldActions(link)
      .then((held) => active && held.length > 0 && dispatch({ type: "held" }))
      .catch(() => {});
    return () => {
      active = false;
    };
  }, [link, dispatch]);
}

/** The server's key for this link is kept (as a key the browser uses but does not give out) for holding. */
function useHoldKey(link: string | null, view: SigningView | null) {
  const holdKey = view?.holdKey;
  useEffect(() => {
    if (link && holdKey) void rememberHoldKey(link, holdKey).catch(() => {});
  }, [link, holdKey]);
}

/** Back online: a page that could not open its link (or whose pass is needed to send) opens it again. */
function useReopenWhenOnline(online: boolean, flow: SigningFlowState, dispatch: Dispatch<SigningFlowAction>) {
  const wasOnline = useRef(online);
  useEffect(() => {
    const returned = online && !wasOnline.current;
    wasOnline.current = online;
    if (returned && !flow.sessionToken && (flow.screen.kind === "ready" || flow.screen.kind === "held"))
      dispatch({ type: "reopen" });
  }, [online, flow.sessionToken, flow.screen.kind, dispatch]);
}

/**
 * The link closed meanwhile (expired, withdrawn, declined) or was signed (now or before): what was
 * held goes, and the link's key with it.
 */
function useForgetWhenClosed(link: string | null, flow: SigningFlowState, dispatch: Dispatch<SigningFlowAction>) {
  const { held, screen } = flow;
  useEffect(() => {
    if (!link) return;
    const signed = screen.kind === "confirmation" || screen.kind === "signed";
    if (screen.kind !== "end" && !signed) return;
    // Done with this link on this device: its key goes too, held or not.
    void forgetLink(link)
      .catch(() => {})
      .then(() => held && dispatch({ type: "held-gone", discarded: !signed }));
  }, [link, held, screen, dispatch]);
}

/** With a pass and a network, the held signature is sent, once; a lost answer is asked again. */
function useSendHeld(
  link: string | null,
  sessionToken: string | null,
  sign: Sign,
  dispatch: Dispatch<SigningFlowAction>,
) {
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!link || !sessionToken) return;
    let active = true;
    let timer: number | undefined;
    heldActions(link)
      .then(([action]) => (action ? sendHeldSignature(action, sign, sessionToken) : null))
      .then(async (state) => {
        if (!active) return;
        await forgetLink(link);
        dispatch({ type: "held-gone", discarded: false });
        if (!state) return dispatch({ type: "show", screen: { kind: "ready" } });
        await forgetKeptPage();
        dispatch({
          type: "signed",
          screen: state === "signed" ? { kind: "signed" } : { kind: "confirmation", justSigned: true },
        });
      })
      .catch((error: unknown) => {
        if (!active) return;
        const apiError = readApiError(error);
        const closed = closedState(apiError);
        if (closed) dispatch({ type: "closed", screen: screenOnClosed(closed) });
        else if (apiError.code === "UNAUTHORIZED") dispatch({ type: "reopen" });
        else timer = window.setTimeout(() => setRound((n) => n + 1), RESEND_MS);
      });
    return () => {
      active = false;
      window.clearTimeout(timer);
    };
  }, [link, sessionToken, sign, dispatch, round]);
}

/**
 * Sends a held signature with its device time and id, with `pass` (the page's fresh one) or else
 * the pass it was made under; null when it cannot be read (the service key was replaced, the
 * record damaged) or has no pass. The signing page and the desk's locked screen both send so.
 */
export async function sendHeldSignature(
  action: HeldActionOfLink,
  sign: Sign,
  pass?: string,
): Promise<"sealing" | "completed" | "signed" | null> {
  const held = await openHeldAction<HeldSignature>(action.link, action.id);
  const sessionToken = pass ?? held?.pass;
  if (!held || !sessionToken) return null;
  const { state } = await sign({
    sessionToken,
    consent: true,
    signature: held.signature,
    language: held.language,
    signedOnDeviceAt: action.heldAt,
    actionId: action.id,
  });
  return state;
}
