/**
 * Template `pattern`s are written by customers and run on values of up to 100,000 characters, on
 * the server and in the patient's browser. They run on RE2 (re2js), whose matching time is linear
 * in the value's length whatever the pattern: `(a+)+b` cannot stall anything. The price is RE2's
 * syntax: no backreferences, no lookahead or lookbehind; such patterns are refused when a
 * template is saved (`patternProblem`).
 *
 * Semantics kept from the former `new RegExp("^(?:p)$", "u")`: the pattern matches the whole
 * value, and it matches code points (`.` and classes see one emoji as one character). `\uXXXX`
 * and `\u{X}` escapes, which RE2 spells `\x{X}`, are translated. Differences left: RE2's `\s` is
 * ASCII whitespace only, and its `.` excludes only `\n`.
 */
import { RE2JS } from "re2js";

/** `\uXXXX` and `\u{X}` (JavaScript's unicode escapes) as RE2's `\x{X}`; every other escape as written. */
function translateEscapes(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c !== "\\") {
      out += c;
      continue;
    }
    const rest = pattern.slice(i + 1, i + 12);
    const braced = /^u\{([0-9A-Fa-f]{1,6})\}/.exec(rest);
    const plain = braced ? null : /^u([0-9A-Fa-f]{4})/.exec(rest);
    const escape = braced ?? plain;
    if (escape) {
      out += `\\x{${escape[1]}}`;
      i += escape[0].length;
    } else {
      out += c + (pattern[i + 1] ?? "");
      i += 1;
    }
  }
  return out;
}

// Compiling is far dearer than matching, and one form checks the same few patterns again and again.
const compiled = new Map<string, RE2JS>();
const CACHE_SIZE = 200;

/** The pattern compiled for RE2; throws (an RE2JS exception) when RE2 cannot compile it. */
function compilePattern(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(translateEscapes(pattern));
    if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value as string);
    compiled.set(pattern, re);
  }
  return re;
}

/** Why a pattern cannot be used, or null when it can. */
export function patternProblem(pattern: string): string | null {
  try {
    compilePattern(pattern);
    return null;
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : "";
    return (
      "must be a regular expression without backreferences, lookahead or lookbehind" + (reason ? ` (${reason})` : "")
    );
  }
}

/**
 * Does the pattern match the whole value? A pattern RE2 cannot compile (only templates saved
 * before patterns ran on RE2 can hold one) matches nothing, so the value is refused rather than
 * accepted unchecked.
 */
export function matchesPattern(pattern: string, value: string): boolean {
  let re: RE2JS;
  try {
    re = compilePattern(pattern);
  } catch {
    return false;
  }
  return re.matches(value);
}
