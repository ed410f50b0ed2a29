import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type JWK,
  type JWTPayload,
} from "jose";
import Provider, { type Configuration } from "oidc-provider";

/**
 * A real OpenID Provider (panva's oidc-provider) on loopback for tests: plain HTML sign-in forms
 * (its development interactions: any password), accounts with an e-mail and a `groups` claim,
 * one confidential client. Keys can be rotated, and the ID token the token endpoint answers can
 * be re-signed with changed claims, to test what a relying party must refuse.
 */

export interface TestIdpUser {
  email: string;
  name?: string;
  groups: string[];
  emailVerified?: boolean;
}

export interface TestIdentityProvider {
  issuer: string;
  /** `127.0.0.1:<port>`, for OUTBOUND_ALLOW_HOSTS. */
  hostPort: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by login name; change them between sign-ins. */
  users: Map<string, TestIdpUser>;
  /** New signing key (new `kid`); the old one is gone from the JWKS. */
  rotateKeys(): Promise<void>;
  /** From now on the token endpoint's ID token carries these changes, re-signed with `key` (default: the provider's). */
  tamperIdToken(change: ((claims: JWTPayload) => JWTPayload) | null, key?: "provider" | "foreign"): void;
  /** Follows an authorization URL through the provider's forms as `login` would; returns the redirect back (callback URL). */
  signIn(authorizationUrl: string, login: string): Promise<string>;
  close(): Promise<void>;
}

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `k-${Math.random().toString(36).slice(2, 10)}`, alg: "RS256", use: "sig" };
}

export async function startTestIdentityProvider(options: {
  redirectUris: string[];
  port?: number;
  clientId?: string;
  clientSecret?: string;
}): Promise<TestIdentityProvider> {
  const clientId = options.clientId ?? "clinsign-test";
  const clientSecret = options.clientSecret ?? "test-client-secret-0123456789abcdef";
  const users = new Map<string, TestIdpUser>();
  let handler: ReturnType<Provider["callback"]> | null = null;
  let tamper: { change: (claims: JWTPayload) => JWTPayload; key: "provider" | "foreign" } | null = null;
  let signingKey = await newSigningKey();
  const foreignKey = await newSigningKey();

  const server: Server = createServer((req, res) => {
    if (tamper && req.method === "POST" && req.url?.startsWith("/token")) {
      const active = tamper;
      const chunks: Buffer[] = [];
      const end = res.end.bind(res);
      res.write = ((chunk: Buffer | string) => (chunks.push(Buffer.from(chunk)), true)) as typeof res.write;
      res.end = ((chunk?: Buffer | string) => {
        if (chunk && typeof chunk !== "function") chunks.push(Buffer.from(chunk));
        void (async () => {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id_token?: string };
          if (body.id_token) {
            const jwk = active.key === "foreign" ? foreignKey : signingKey;
            const claims = active.change(decodeJwt(body.id_token));
            body.id_token = await new SignJWT(claims)
              .setProtectedHeader({ alg: "RS256", kid: jwk.kid, typ: decodeProtectedHeader(body.id_token).typ })
              .sign(await importJWK(jwk, "RS256"));
          }
          const text = JSON.stringify(body);
          res.setHeader("content-length", Buffer.byteLength(text));
          end(text);
        })();
        return res;
      }) as typeof res.end;
    }
    if (!handler) return void res.writeHead(503).end();
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const build = () => {
    const configuration: Configuration = {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: options.redirectUris,
          grant_types: ["authorization_code"],
          response_types: ["code"],
        },
      ],
      jwks: { keys: [signingKey] },
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups"] },
      // Scope claims go into the ID token (as Keycloak's and Entra's group claims do).
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      features: { devInteractions: { enabled: true } },
      cookies: { keys: ["test-cookie-key-0123456789"] },
      ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
      findAccount: (_ctx, sub) => {
        const user = users.get(sub);
        if (!user) return undefined;
        return {
          accountId: sub,
          claims: () => ({
            sub,
            email: user.email,
            email_verified: user.emailVerified ?? true,
            name: user.name ?? sub,
            groups: user.groups,
          }),
        };
      },
      // First-party client: no consent screen.
      loadExistingGrant: async (ctx) => {
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client!.clientId,
          accountId: ctx.oidc.session!.accountId!,
        });
        grant.addOIDCScope("openid email profile");
        await grant.save();
        return grant;
      },
    };
    const provider = new Provider(issuer, configuration);
    provider.on("server_error", () => {});
    return provider.callback();
  };
  handler = build();

  return {
    issuer,
    hostPort: `127.0.0.1:${port}`,
    clientId,
    clientSecret,
    users,
    async rotateKeys() {
      signingKey = await newSigningKey();
      handler = build();
    },
    tamperIdToken(change, key = "provider") {
      tamper = change ? { change, key } : null;
    },
    async signIn(authorizationUrl, login) {
      const jar = new Map<string, string>();
      const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
      const remember = (response: Response) => {
        for (const cookie of response.headers.getSetCookie()) {
          const [pair] = cookie.split(";");
          const eq = pair!.indexOf("=");
          jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
      };
      let url = authorizationUrl;
      for (let hop = 0; hop < 10; hop++) {
        if (!url.startsWith(issuer)) return url;
        const response = await fetch(url, { redirect: "manual", headers: { cookie: cookieHeader() } });
        remember(response);
        const location = response.headers.get("location");
        if (location) {
          url = new URL(location, url).toString();
          continue;
        }
        const html = await response.text();
        const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
        if (response.status !== 200 || !action)
          throw new Error(`the provider answered ${response.status} without a sign-in form`);
        const posted = await fetch(new URL(action, url), {
          method: "POST",
          redirect: "manual",
          headers: { cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ prompt: "login", login, password: "any" }).toString(),
        });
        remember(posted);
        url = new URL(posted.headers.get("location") ?? url, url).toString();
      }
      throw new Error("too many redirects at the provider");
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
