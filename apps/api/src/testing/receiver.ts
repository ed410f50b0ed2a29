import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Decides each answer; by default 200. */
  respond: (
    req: ReceivedRequest,
    index: number,
  ) => { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };
  close(): Promise<void>;
}

/** A local HTTP endpoint that records what it receives (webhook receivers, a Twilio stand-in). */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: "",
    port: 0,
    requests: [],
    respond: () => ({ status: 200, body: "ok" }),
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const recorded = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      receiver.requests.push(recorded);
      const answer = receiver.respond(recorded, receiver.requests.length - 1);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(answer.body ?? "");
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

/** The configuration that sends SMS to `twilio` (a receiver standing in for Twilio's Messages API). */
export function twilioEnv(twilio: Receiver): Record<string, string> {
  return {
    SMS_PROVIDER: "twilio",
    TWILIO_API_URL: twilio.url,
    TWILIO_ACCOUNT_SID: "AC123",
    TWILIO_AUTH_TOKEN: "secret-token",
    TWILIO_FROM: "+15005550006",
  };
}
