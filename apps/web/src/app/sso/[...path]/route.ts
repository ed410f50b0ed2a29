import type { NextRequest } from "next/server";
import { forwardToApi } from "../../../lib/api-proxy";

/**
 * Single sign-on on the web origin: /sso/start and /sso/callback (the redirect URI registered at
 * the provider) go to the API, and its redirect and cookies come back, so the browser-binding and
 * session cookies are first-party here.
 */

export const dynamic = "force-dynamic";

export const GET = (request: NextRequest) => forwardToApi(request);
