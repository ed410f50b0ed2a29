"use client";

import type { Attachment, FormValues, PatientLanguage, Template } from "@clinsign/contracts";
import { useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { isClientError, isUnreached } from "../../trpc/errors";
import {
  canHold,
  forgetLink,
  heldActions,
  heldStorageAvailable,
  holdAction,
  type HeldKind,
  linkId,
  openHeldAction,
  rememberHoldKey,
} from "../patient/offline/held";
import { forgetKeptPage, useOnline } from "../patient/offline/service-worker";
import { UploadError } from "./uploads";

/** What a form page keeps of its opened form, to open it again without a network; `page` is the page's own part. */
export interface KeptForm<Page> {
  template: Template;
  values: FormValues;
  language: string | null;
  page: Page;
}

/** What the device holds for a form when it opens: a submission waiting, the kept form. */
export interface OnDevice<Page> {
  holdsSubmission: boolean;
  kept: KeptForm<Page> | null;
}

/** A submission made offline, waiting for the network. */
export interface HeldSubmission {
  values: FormValues;
  language: PatientLanguage;
  actionId: string | undefined;
}

/** A file picked offline: its bytes (base64) until the submission sends it. */
interface HeldFile {
  name: string;
  type: string;
  bytes: string;
}

/**
 * Sends the answers (with held files already sent); throws the API's error when refused. Returns
 * how to show what the server answered, which happens once the device has forgotten the form.
 */
export type SendForm = (
  values: FormValues,
  language: PatientLanguage,
  actionId: string | undefined,
) => Promise<() => void>;
/** Sends one file of a field, as the page's upload does. */
export type SendFile = (file: File, fieldKey: string, onProgress: (fraction: number) => void) => Promise<Attachment>;

/** A file picked offline is named in the answers by this path until it is sent. */
const HELD_FILE = "held:";
const isAttachment = (value: unknown): value is Attachment =>
  typeof value === "object" && value !== null && typeof (value as Attachment).path === "string";
const isHeldFile = (value: unknown): value is Attachment => isAttachment(value) && value.path.startsWith(HELD_FILE);

/** The answers without files picked offline: a draft on the server names only files it has. */
export function withoutHeldFiles(values: FormValues): FormValues {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [
      key,
      Array.isArray(value) ? value.filter((item) => !isHeldFile(item)) : value,
    ]),
  );
}

/** A held submission is tried again this often while the page is open and believes it is online. */
const RESEND_MS = 15_000;
/** Answers typed offline reach the device's copy this soon (a reload, a closed tab finds them). */
const KEEP_VALUES_MS = 300;

/**
 * What the device holds for one form (its link or session): the opened form with the answers
 * typed last, files picked and a submission made offline, all encrypted with the form's key. The
 * page's calls (`calls`) and the form's end (`until`) are read when needed, so one instance serves
 * the page while the form's link is the same.
 */
class HeldForm<Page> {
  /** The link's id on this device (the SHA-256 of its credential); null without IndexedDB or credential. */
  private readonly link: Promise<string> | null;
  private kept: KeptForm<Page> | null = null;
  private keepTimer: number | undefined;
  until: string | null = null;

  constructor(
    credential: string | null,
    private readonly calls: RefObject<HeldCalls>,
  ) {
    this.link = credential && heldStorageAvailable() ? linkId(credential) : null;
  }

  private made(id: string) {
    return { id, heldAt: new Date().toISOString(), until: this.until };
  }

  private async writeKept(form: KeptForm<Page>): Promise<void> {
    await this.keyReady;
    const id = await this.link;
    if (id && (await canHold(id))) await holdAction(id, "form", form, this.made(`form:${id}`));
  }

  /** The key being stored: what is kept waits for it, the page's opening does not. */
  private keyReady: Promise<void> = Promise.resolve();

  /**
   * The server's key for this form (or its answer on the way), kept as one the browser uses but
   * does not give out. Not a step of the opening: only what is kept waits for it.
   */
  rememberKey = (holdKey: string | Promise<string>): Promise<void> => {
    this.keyReady = (async () => {
      const [id, key] = await Promise.all([this.link, holdKey]);
      if (id) await rememberHoldKey(id, key);
    })().catch(() => {});
    return this.keyReady;
  };

  /** The opened form, kept for opening it again offline; `until`, when the form's link or session ends. */
  keep = async (form: KeptForm<Page>, until: string | null = this.until): Promise<void> => {
    this.kept = form;
    this.until = until;
    await this.writeKept(form).catch(() => {});
  };

  /** The form this device kept, with the answers typed last; null when there is none (or no key). */
  keptForm = async (): Promise<KeptForm<Page> | null> => {
    const id = await this.link;
    if (!id) return null;
    const form = await openHeldAction<KeptForm<Page>>(id, `form:${id}`).catch(() => null);
    this.kept = form ?? this.kept;
    return form;
  };

  /** The kinds of what this device holds for the form (no decryption). */
  private async heldKinds(): Promise<Set<HeldKind>> {
    const id = await this.link?.catch(() => null);
    return new Set(id ? (await heldActions(id).catch(() => [])).map((action) => action.kind) : []);
  }

  /**
   * What this device holds for the form, read once when it opens: whether a submission waits, and
   * the kept form (decrypted only when there is one: a first visit costs one read).
   */
  onDevice = async (): Promise<OnDevice<Page>> => {
    const kinds = await this.heldKinds();
    return { holdsSubmission: kinds.has("submission"), kept: kinds.has("form") ? await this.keptForm() : null };
  };

  /** Whether a submission made offline waits on this device. */
  holdsSubmission = async (): Promise<boolean> => (await this.heldKinds()).has("submission");

  /**
   * The form as opened online, with the answers this device kept over the server's draft (typed
   * since it was last saved), kept anew in the background so the form shows without waiting for
   * the write; and whether a submission made offline waits.
   */
  opened = async (
    form: KeptForm<Page>,
    until: string | null,
    onDevice: Promise<OnDevice<Page>>,
  ): Promise<{ form: KeptForm<Page>; holdsSubmission: boolean }> => {
    const { holdsSubmission, kept } = await onDevice;
    const merged = { ...form, values: { ...form.values, ...(kept?.values ?? {}) } };
    void this.keep(merged, until);
    return { form: merged, holdsSubmission };
  };

  /** The answers after a change: the kept copy follows (shortly, once typing pauses). */
  keepValues = (values: FormValues): void => {
    if (!this.kept) return;
    this.kept = { ...this.kept, values };
    window.clearTimeout(this.keepTimer);
    this.keepTimer = window.setTimeout(() => void this.writeKept(this.kept!).catch(() => {}), KEEP_VALUES_MS);
  };

  stopKeeping(): void {
    window.clearTimeout(this.keepTimer);
  }

  /** The page's submit: sent with a network (held files first), held on the device without one. */
  submit = async (values: FormValues, language: PatientLanguage, actionId: string | undefined) => {
    const id = await this.link;
    const holdable = async () => id !== null && this.kept !== null && (await canHold(id));
    const hold = async () => {
      this.stopKeeping();
      await this.writeKept({ ...this.kept!, values });
      const held: HeldSubmission = { values, language, actionId };
      await holdAction(id!, "submission", held, this.made(actionId ?? crypto.randomUUID()));
      return "held" as const;
    };
    if (!navigator.onLine && (await holdable())) return hold();
    let show: () => void;
    try {
      show = await this.calls.current.send(
        await sendHeldFiles(id, values, this.calls.current.sendFile),
        language,
        actionId,
      );
    } catch (error) {
      if (isUnreachedCall(error) && (await holdable())) return hold();
      throw error;
    }
    await forgetForm(id);
    show();
    return "sent" as const;
  };

  /** The page's upload: sent with a network, held on the device without one (named by a held path). */
  upload = async (file: File, fieldKey: string, onProgress: (fraction: number) => void): Promise<Attachment> => {
    const id = await this.link;
    const holdable = async () => id !== null && (await canHold(id));
    const hold = async (): Promise<Attachment> => {
      const held: HeldFile = { name: file.name, type: file.type, bytes: toBase64(await file.arrayBuffer()) };
      const action = await holdAction(id!, "file", held, this.made(crypto.randomUUID()));
      onProgress(1);
      const type = file.type || "application/octet-stream";
      return { name: file.name, path: `${HELD_FILE}${action.id}`, size: file.size, type };
    };
    if (!navigator.onLine && (await holdable())) return hold();
    try {
      return await this.calls.current.sendFile(file, fieldKey, onProgress);
    } catch (error) {
      if (isUnreachedCall(error) && (await holdable())) return hold();
      throw error;
    }
  };

  /** Everything this device holds for the form goes (a link that closed, a next person at the desk). */
  forget = async (): Promise<void> => forgetForm(await this.link);

  /** The form's link closed: everything held goes; true when a submission made here went unsent. */
  discard = async (): Promise<boolean> => {
    const unsent = await this.holdsSubmission();
    await this.forget();
    return unsent;
  };

  /** The link's id, for sending what is held. */
  linkId(): Promise<string> | null {
    return this.link;
  }
}

export type OfflineForm<Page> = HeldForm<Page>;

/**
 * A form offline (issue 35, docs/forms-api.md "Offline"), shared by the embedded form and the SMS
 * link: the opened form is kept on the device, encrypted with the key the server gives the form's
 * caller, so a reload or a reopened tab without network opens it again with the answers typed so
 * far; a file picked and a submission made offline are held the same way and sent by themselves
 * when the network returns (the submission with its id, so a resend after a lost answer makes no
 * second one). Sent, or refused for good, everything the device held for the form goes.
 *
 * `credential` names the form's link or session on this device (null while unknown); `until` is
 * when it ends (held data past it is of no use).
 */
export function useOfflineForm<Page>({
  credential,
  until,
  sending,
  send,
  sendFile,
  onRefused,
}: {
  credential: string | null;
  until: string | null;
  /** The page shows its held submission: with a network, it is sent. */
  sending: boolean;
  /** Sends the answers and shows what the server answered (the page's confirmation). */
  send: SendForm;
  sendFile: SendFile;
  /** The held submission was refused (the link closed meanwhile, or its answers were), or cannot be read (null). */
  onRefused(error: unknown, held: HeldSubmission | null): void;
}): OfflineForm<Page> {
  const online = useOnline();
  const calls = useRef<HeldCalls>({ send, sendFile, onRefused });
  calls.current = { send, sendFile, onRefused };
  const form = useMemo(() => new HeldForm<Page>(credential, calls), [credential]);
  form.until = until;
  useEffect(() => () => form.stopKeeping(), [form]);
  useSendHeldSubmission(form.linkId(), sending && online, calls);
  return form;
}

/** The form is done on this device: what it held goes, and so does the page's kept copy. */
async function forgetForm(link: string | null): Promise<void> {
  if (link) await forgetLink(link).catch(() => {});
  await forgetKeptPage();
}

/** No answer came: the network is gone, or dropped on the way (an upload says status 0). */
function isUnreachedCall(error: unknown): boolean {
  return error instanceof UploadError ? error.status === 0 : isUnreached(error);
}

/** With a network, the held submission is sent (files first), once; a lost answer is asked again later. */
function useSendHeldSubmission(link: Promise<string> | null, active: boolean, calls: RefObject<HeldCalls>) {
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!link || !active) return;
    let live = true;
    let timer: number | undefined;
    let held: HeldSubmission | null = null;
    (async () => {
      const id = await link;
      const [action] = (await heldActions(id)).filter((entry) => entry.kind === "submission");
      held = action ? await openHeldAction<HeldSubmission>(id, action.id) : null;
      // Unreadable (the service key was replaced, the record damaged) or sent meanwhile by another
      // tab: nothing to send, and nothing of it stays.
      if (!held) {
        await forgetLink(id);
        throw new Error("no held submission to send");
      }
      const values = await sendHeldFiles(id, held.values, calls.current.sendFile);
      const show = await calls.current.send(values, held.language, held.actionId);
      await forgetForm(id);
      show();
    })().catch((error: unknown) => {
      if (!live) return;
      if (held && (isUnreachedCall(error) || !isClientError(error)))
        timer = window.setTimeout(() => setRound((n) => n + 1), RESEND_MS);
      else calls.current.onRefused(error, held);
    });
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [link, active, calls, round]);
}

interface HeldCalls {
  send: SendForm;
  sendFile: SendFile;
  onRefused(error: unknown, held: HeldSubmission | null): void;
}

/** The answers with every file picked offline sent first and named as the server named it. */
async function sendHeldFiles(link: string | null, values: FormValues, sendFile: SendFile): Promise<FormValues> {
  if (!link) return values;
  const sent: FormValues = {};
  for (const [key, value] of Object.entries(values)) {
    if (!Array.isArray(value) || !value.some(isHeldFile)) {
      sent[key] = value;
      continue;
    }
    const files: unknown[] = [];
    for (const item of value) {
      if (!isHeldFile(item)) files.push(item);
      else files.push(await sendHeldFile(link, item, key, sendFile));
    }
    sent[key] = files;
  }
  return sent;
}

async function sendHeldFile(link: string, named: Attachment, key: string, sendFile: SendFile): Promise<Attachment> {
  const held = await openHeldAction<HeldFile>(link, named.path.slice(HELD_FILE.length));
  if (!held) throw new UploadError("the file kept on this device cannot be read", 400);
  const file = new File([fromBase64(held.bytes)], held.name, { type: held.type });
  return sendFile(file, key, () => {});
}

function toBase64(buffer: ArrayBuffer): string {
  const bytes = new Uint8Array(buffer);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(value: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(value), (char) => char.charCodeAt(0));
}
