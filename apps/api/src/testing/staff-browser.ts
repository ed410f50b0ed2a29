import type { TestIdentityProvider } from "./oidc-provider";

/**
 * A staff member's browser for tests of the sign-in doors: one cookie jar across tRPC calls and
 * the single sign-on redirects, as Chromium keeps it (cookies set, replaced, cleared by Max-Age=0).
 */
export interface StaffAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
  data: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  error: any;
  setCookies: string[];
}

export class StaffBrowser {
  readonly jar: Record<string, string> = {};

  constructor(
    private readonly baseUrl: string,
    /** The address the requests come from (`x-forwarded-for`): rate limits count per address. */
    private readonly ip = "198.51.100.20",
  ) {}

  get cookieHeader(): string {
    return Object.entries(this.jar)
      .map(([name, value]) => `${name}=${value}`)
      .join("; ");
  }

  private keep(setCookies: string[]): void {
    for (const set of setCookies) {
      const [pair] = set.split(";");
      const [name, value] = pair!.split("=") as [string, string];
      if (value === "" || set.includes("Max-Age=0")) delete this.jar[name];
      else this.jar[name] = value;
    }
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    const cookie = this.cookieHeader;
    const response = await fetch(`${this.baseUrl}${path}`, {
      ...init,
      redirect: "manual",
      headers: { "x-forwarded-for": this.ip, ...(cookie && { cookie }), ...init.headers },
    });
    this.keep(response.headers.getSetCookie());
    return response;
  }

  /** A tRPC mutation. */
  async call(path: string, input?: unknown): Promise<StaffAnswer> {
    const response = await this.send(`/trpc/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: input === undefined ? undefined : JSON.stringify(input),
    });
    return this.answer(response);
  }

  /** A tRPC query. */
  async query(path: string, input?: unknown): Promise<StaffAnswer> {
    const search = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
    return this.answer(await this.send(`/trpc/${path}${search}`, { method: "GET" }));
  }

  private async answer(response: Response): Promise<StaffAnswer> {
    const body = (await response.json()) as { result?: { data: unknown }; error?: unknown };
    return {
      status: response.status,
      data: body.result?.data,
      error: body.error,
      setCookies: response.headers.getSetCookie(),
    };
  }

  /**
   * Single sign-on as a browser does it: `/sso/start` at the API, the provider's forms as `login`,
   * and the provider's redirect back to the callback (which the web app passes to the API).
   * Returns where the callback sends the browser.
   */
  async ssoSignIn(idp: TestIdentityProvider, organizationId: string, login: string): Promise<string> {
    const started = await this.send(`/sso/start?org=${organizationId}`, { method: "GET" });
    const callback = new URL(await idp.signIn(started.headers.get("location")!, login));
    const landed = await this.send(`/sso/callback${callback.search}`, { method: "GET" });
    return landed.headers.get("location")!;
  }
}
