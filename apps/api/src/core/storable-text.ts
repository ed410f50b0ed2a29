import { AppError } from "./errors";

/** Deeper input than this is refused: nothing the service accepts nests this far, and walking it could overflow the stack. */
export const MAX_INPUT_DEPTH = 64;

/**
 * PostgreSQL cannot store U+0000 in text or jsonb, and an unpaired surrogate is no Unicode text
 * (postgres.js would store U+FFFD, jsonb refuses it). Both are a client's mistake or malice.
 */
export function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && !/\p{Cs}/u.test(value);
}

const isPlainObject = (value: object) => {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

const label = (key: string) => (isStorableText(key) ? key : "?");

/**
 * Walks a parsed input (JSON body, query, path parameters, multipart fields) once and throws 400
 * `invalid_request` naming the first field whose text, or whose key, cannot be stored, or that
 * nests deeper than `MAX_INPUT_DEPTH`. Iterative, so hostile nesting cannot overflow the stack.
 * Buffers and other non-plain objects (file bytes) are left alone.
 */
export function assertStorableInput(input: unknown, prefix: string[] = []): void {
  const pending: { value: unknown; path: string[] }[] = [{ value: input, path: prefix }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (typeof value === "string") {
      if (!isStorableText(value)) throw unstorable(path);
      continue;
    }
    if (!value || typeof value !== "object" || !(Array.isArray(value) || isPlainObject(value))) continue;
    if (path.length - prefix.length >= MAX_INPUT_DEPTH) {
      const field = path.join(".") || "body";
      throw new AppError("invalid_request", `${field}: nests deeper than ${MAX_INPUT_DEPTH} levels`, { field }, [
        { key: field, message: `nests deeper than ${MAX_INPUT_DEPTH} levels` },
      ]);
    }
    // Pushed in reverse so the first offending field in input order is the one reported.
    for (const [key, item] of Object.entries(value).reverse()) {
      if (!isStorableText(key)) throw unstorable([...path, label(key)]);
      pending.push({ value: item, path: [...path, key] });
    }
  }
}

function unstorable(path: string[]): AppError {
  const field = path.join(".") || "body";
  const message = "must not contain NUL characters or unpaired surrogates";
  return new AppError("invalid_request", `${field}: ${message}`, { field }, [{ key: field, message }]);
}
