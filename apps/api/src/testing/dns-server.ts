// dns2 speaks DNS over UDP on loopback; node:dns's Resolver asks it like any name server.
import { createUDPServer, Packet } from "dns2";

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for DNS_RESOLVERS (node:dns `setServers`). */
  resolver: string;
  /** From now on `name` has these TXT records (an empty list: the name exists without TXT records). */
  setTxt(name: string, values: string[]): void;
  /** `name` no longer exists (NXDOMAIN). */
  clear(name: string): void;
  close(): Promise<void>;
}

const normalizeName = (name: string) => name.toLowerCase().replace(/\.$/, "");

// One TXT character-string holds at most 255 bytes; longer values go out as several, as real
// servers send long records (DKIM keys), so clients must join them.
function characterStrings(value: string): string[] {
  const chunks: string[] = [];
  let chunk = "";
  for (const character of value) {
    if (Buffer.byteLength(chunk + character) > 255) {
      chunks.push(chunk);
      chunk = "";
    }
    chunk += character;
  }
  return [...chunks, chunk];
}

/**
 * A name server on 127.0.0.1 (UDP) answering TXT queries from records the test sets: on `port`
 * when given (the e2e run's fixed DNS_RESOLVERS), else on a free one.
 */
export async function startTestDnsServer(options: { port?: number } = {}): Promise<TestDnsServer> {
  const txtRecords = new Map<string, string[]>();
  const server = createUDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    const values = question ? txtRecords.get(normalizeName(question.name)) : undefined;
    if (!question || !values) response.header.rcode = Packet.RCODE.NXDOMAIN;
    else if (question.type === Packet.TYPE.TXT)
      for (const value of values)
        response.answers.push(Packet.createResourceFromQuestion(question, { ttl: 1, data: characterStrings(value) }));
    void send(response);
  });
  await server.listen(options.port ?? 0, "127.0.0.1");
  const { port } = server.address();
  return {
    resolver: `127.0.0.1:${port}`,
    setTxt: (name, values) => void txtRecords.set(normalizeName(name), [...values]),
    clear: (name) => void txtRecords.delete(normalizeName(name)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
