import type { IncomingMessage, ServerResponse } from "node:http";
export const FALLBACK_CSP: string;
export const SERVICE_WORKER_CSP: string;
export function securityHeaders(url: string | undefined): Record<string, string>;
export function withSecurityHeaders<R extends ServerResponse>(req: IncomingMessage, res: R): R;
