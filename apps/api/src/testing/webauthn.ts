import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { isoCBOR } from "@simplewebauthn/server/helpers";

/**
 * A software WebAuthn authenticator for API tests: a real P-256 key, real CBOR attestation
 * ("none" format) and real ES256 assertions, so the server's verification runs unchanged.
 */
export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly keys: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync("ec", {
    namedCurve: "P-256",
  });
  private signCount = 0;
  private userHandle: string | null = null;

  constructor(private readonly origin: string) {}

  get id(): string {
    return this.credentialId.toString("base64url");
  }

  private authenticatorData(rpId: string, attested: Buffer | null): Buffer {
    const flags = 0x01 | 0x04 | (attested ? 0x40 : 0); // user present, user verified, attested credential data
    const count = Buffer.alloc(4);
    count.writeUInt32BE(++this.signCount);
    return Buffer.concat([
      createHash("sha256").update(rpId).digest(),
      Buffer.from([flags]),
      count,
      attested ?? Buffer.alloc(0),
    ]);
  }

  private clientData(type: "webauthn.create" | "webauthn.get", challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** Answers `navigator.credentials.create()` options as the browser would hand them to the page. */
  register(
    options: { challenge: string; rp: { id?: string }; user: { id: string } },
    overrides: { origin?: string } = {},
  ) {
    const jwk = this.keys.publicKey.export({ format: "jwk" });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, Buffer.from(isoCBOR.encode(cose))]);
    const authData = this.authenticatorData(options.rp.id!, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]) as never,
    );
    this.userHandle = options.user.id;
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: this.clientData("webauthn.create", options.challenge, overrides.origin).toString("base64url"),
        attestationObject: Buffer.from(attestationObject).toString("base64url"),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** Answers `navigator.credentials.get()` options with an ES256 signature over authData ‖ SHA-256(clientDataJSON). */
  assert(options: { challenge: string; rpId?: string }, overrides: { origin?: string } = {}) {
    const authData = this.authenticatorData(options.rpId!, null);
    const clientDataJSON = this.clientData("webauthn.get", options.challenge, overrides.origin);
    const signature = sign(
      "sha256",
      Buffer.concat([authData, createHash("sha256").update(clientDataJSON).digest()]),
      this.keys.privateKey,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      response: {
        clientDataJSON: clientDataJSON.toString("base64url"),
        authenticatorData: authData.toString("base64url"),
        signature: signature.toString("base64url"),
        ...(this.userHandle && { userHandle: this.userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}
