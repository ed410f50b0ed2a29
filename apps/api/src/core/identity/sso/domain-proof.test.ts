import { createSocket } from "node:dgram";
import { Resolver } from "node:dns/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestDnsServer, type TestDnsServer } from "../../../testing/dns-server";
import { DOMAIN_PROOF_PREFIX, domainProofRecord, isPublicMailDomain, lookupDomainProof } from "./domain-proof";

const token = "k3Jx9QvT2bLmN8pR4sW6yZ0aC5dF7gH1";
const proof = domainProofRecord("klinik.example", token);

/** A loopback UDP socket that swallows queries (`silent`) or a port nobody listens on (refused). */
async function unansweringResolver(kind: "silent" | "closed"): Promise<{ resolver: string; close(): void }> {
  const socket = createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address();
  if (kind === "closed") await new Promise<void>((resolve) => socket.close(resolve));
  return {
    resolver: `127.0.0.1:${port}`,
    close: () => {
      if (kind === "silent") socket.close();
    },
  };
}

describe("domainProofRecord", () => {
  it("names the record under the domain and carries the token", () => {
    expect(DOMAIN_PROOF_PREFIX).toBe("_clinsign-challenge");
    expect(proof).toEqual({
      name: "_clinsign-challenge.klinik.example",
      value: `clinsign-domain-verification=${token}`,
    });
    expect(domainProofRecord("Klinik.Example.", token).name).toBe("_clinsign-challenge.klinik.example");
  });
});

describe("lookupDomainProof", () => {
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDnsServer();
  });
  afterAll(async () => {
    await dns.close();
  });
  beforeEach(() => {
    dns.clear(proof.name);
  });

  it("finds the published value among the name's TXT records", async () => {
    dns.setTxt(proof.name, ["v=spf1 -all", ` ${proof.value} `]);
    expect(await lookupDomainProof([dns.resolver], "klinik.example", token)).toBe("found");
    expect(await lookupDomainProof([dns.resolver], "KLINIK.example.", token)).toBe("found");
  });

  it("is not_found without the record, with no TXT records, or with another value", async () => {
    expect(await lookupDomainProof([dns.resolver], "klinik.example", token)).toBe("not_found");
    dns.setTxt(proof.name, []);
    expect(await lookupDomainProof([dns.resolver], "klinik.example", token)).toBe("not_found");
    dns.setTxt(proof.name, [domainProofRecord("klinik.example", "another-token").value]);
    expect(await lookupDomainProof([dns.resolver], "klinik.example", token)).toBe("not_found");
    dns.setTxt(proof.name, [`${proof.value}x`]);
    expect(await lookupDomainProof([dns.resolver], "klinik.example", token)).toBe("not_found");
  });

  it("joins a long record's character-strings into one value", async () => {
    const longToken = "t".repeat(300);
    const longProof = domainProofRecord("klinik.example", longToken);
    dns.setTxt(longProof.name, [longProof.value]);
    const resolver = new Resolver();
    resolver.setServers([dns.resolver]);
    expect((await resolver.resolveTxt(longProof.name))[0]).toHaveLength(2);
    expect(await lookupDomainProof([dns.resolver], "klinik.example", longToken)).toBe("found");
  });

  it("is dns_error when no name server answers, not a verdict on the domain", async () => {
    for (const kind of ["silent", "closed"] as const) {
      const nobody = await unansweringResolver(kind);
      const started = Date.now();
      expect(await lookupDomainProof([nobody.resolver], "klinik.example", token, 200), kind).toBe("dns_error");
      // The resolver gives up after its tries instead of hanging the request that asked.
      expect(Date.now() - started).toBeLessThan(3000);
      nobody.close();
    }
  });
});

describe("isPublicMailDomain", () => {
  it("refuses free mail providers, in any case and with the root's dot", () => {
    for (const domain of ["gmail.com", "GMX.de", "web.de.", "proton.me", "163.com", "fastmail.com"])
      expect(isPublicMailDomain(domain), domain).toBe(true);
  });

  it("leaves organizations' domains and providers' subdomains claimable", () => {
    for (const domain of ["klinik.example", "charite.de", "mail.gmx.de", "gmail.com.example", "notgmail.com"])
      expect(isPublicMailDomain(domain), domain).toBe(false);
  });
});
