/**
 * How src/env.ts reads a variable's text: switches, port numbers, bounded counts, URLs of a scheme,
 * comma-separated lists, `host[:port]` and name-server addresses, each with the message a wrong
 * value gets. Where a fallback is given, it stands for an unset variable (loadConfig reads an empty
 * one as unset).
 */
import { isIP } from "node:net";
import { z } from "zod";

/** Switches accept true/false and 1/0 (docs: configuration conventions). */
export const bool = (fallback: boolean) =>
  z
    .enum(["true", "false", "1", "0"], { message: "must be true, false, 1 or 0" })
    .optional()
    .transform((v) => (v === undefined ? fallback : v === "true" || v === "1"));

export const port = <Fallback extends number | undefined>(fallback: Fallback) =>
  z
    .string()
    .regex(/^\d+$/, { message: "must be a port number" })
    .transform(Number)
    .pipe(z.number().int().min(0).max(65535, { message: "must be a port number up to 65535" }))
    .optional()
    .transform((v) => v ?? fallback);

export const count = <Fallback extends number | undefined>(fallback: Fallback, min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { message: "must be a whole number" })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { message: `must be at least ${min}` })
        .max(max, { message: `must be at most ${max}` }),
    )
    .optional()
    .transform((v) => v ?? fallback);

export const url = (protocols: RegExp, what: string) =>
  z.url({ protocol: protocols, message: `must be a ${what} URL` }).optional();

/** Comma-separated list, blanks dropped. */
export const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  );

export const hostPort = z
  .string()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, { message: "must be host or host:port" });

/** node:dns `setServers` takes addresses, not names: a name here would fail every lookup, so it stops start-up. */
export const nameServer = z
  .string()
  .refine(isNameServerAddress, { message: "must be an IP address or IP:port ([IPv6]:port for IPv6)" });

/** `1.2.3.4`, `1.2.3.4:53`, `::1` or `[::1]:53`: what node:dns `setServers` accepts. */
function isNameServerAddress(entry: string): boolean {
  if (isIP(entry)) return true;
  const withPort = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(entry);
  if (!withPort) return false;
  const [, ipv6, ipv4, port] = withPort;
  const portNumber = Number(port);
  return isIP(ipv6 ?? ipv4 ?? "") === (ipv6 ? 6 : 4) && portNumber >= 1 && portNumber <= 65535;
}
