/**
 * Where the API listens, read at request time so one build runs against any API address
 * (`API_HOST`, default 127.0.0.1; `API_PORT`, default 4000).
 */
export function apiOrigin(): string {
  const host = process.env.API_HOST || "127.0.0.1";
  const port = process.env.API_PORT || "4000";
  const bracketed = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `http://${bracketed}:${port}`;
}
