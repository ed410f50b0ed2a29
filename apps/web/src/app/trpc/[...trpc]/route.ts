import { forwardToApi } from "../../../lib/api-proxy";

/** The web app's /trpc/* calls, passed on to the API (lib/api-proxy.ts). */

export const dynamic = "force-dynamic";

export {
  forwardToApi as GET,
  forwardToApi as POST,
  forwardToApi as PUT,
  forwardToApi as PATCH,
  forwardToApi as DELETE,
  forwardToApi as OPTIONS,
  forwardToApi as HEAD,
};
